/// Every tunable of the filter chain, with its default. docs/chain.md explains each
/// value and where it comes from.
public struct PipelineConfiguration: Sendable, Equatable {
    // MARK: GNSS cleaning
    /// Fixes with a horizontal DOP above this are dropped: the usual rating calls 5–10
    /// "moderate" (still usable for navigation) and above 10 "fair"/"poor".
    public var maxHDOP: Double = 10
    /// A fix whose receive delay (receivedAt − UTC) exceeds the smallest delay seen by more
    /// than this is stale (e.g. a receiver replaying a buffer).
    public var maxFixLatencySeconds: Double = 2
    /// Position steps implying more than this are jumps unless the receiver's own Doppler
    /// speed agrees (then it is a vehicle, classified as such, not a glitch).
    public var maxBikeSpeed: Double = 25
    /// Above this nothing that carries a bike moves: always rejected (m/s).
    public var maxPlausibleSpeed: Double = 70
    /// Alpha-beta filter gains for the east/north position (per fix).
    public var positionAlpha: Double = 0.6
    public var positionBeta: Double = 0.15
    /// Smoothing of the reported speed: weight of the newest fix.
    public var speedAlpha: Double = 0.5

    // MARK: Orientation
    /// Time constant of the complementary filter's pull towards the accelerometer, s.
    public var gravityTimeConstantWithGyro: Double = 2
    /// Time constant of the gravity low-pass when the device has no gyro, s.
    public var gravityTimeConstantWithoutGyro: Double = 0.5

    // MARK: Activity
    public var stationaryBelowSpeed: Double = 0.6
    public var walkingBelowSpeed: Double = 2.0
    /// Sustained speed above which the bike is on a car rack or a train (58 km/h).
    public var motorVehicleAboveSpeed: Double = 16
    /// A new activity must persist this long before it is reported.
    public var activityHoldSeconds: Double = 4

    // MARK: Trips
    public var tripStartCyclingSeconds: Double = 30
    public var tripStartCyclingMeters: Double = 100
    /// A would-be trip survives non-cycling interruptions (traffic lights, a few steps of
    /// pushing) up to this long; only cycling time counts towards the start.
    public var tripStartGraceSeconds: Double = 60
    public var tripEndInactivitySeconds: Double = 300
    /// Below this smoothed speed the trip is auto-paused (moving time and distance stop).
    public var autoPauseBelowSpeed: Double = 1.0
    /// Grams of CO₂ per km a car would have emitted. UK DESNZ/DEFRA GHG conversion
    /// factors 2023, "Average car, unknown fuel": 0.168 kg CO₂e/km.
    public var co2GramsPerKilometre: Double = 168
    /// Douglas–Peucker tolerance of the stored path, metres.
    public var pathToleranceMeters: Double = 5
    /// Elevation noise hysteresis: climbs count only once they exceed this, metres.
    public var elevationHysteresisMeters: Double = 4
    /// Trip distance integrates the receiver's speed over ground between fixes at most this
    /// far apart, and takes the straight line between positions across longer gaps
    /// (`TripTotals.step`: 2 s covers one lost epoch of a 1 Hz receiver; braking and
    /// speeding up again at 1.5 m/s² inside it moves the trapezoid off by ≤ 1.5 m).
    public var dopplerDistanceMaxGapSeconds: Double = 2
    /// A step whose mean ground speed (from the receiver) is at least this counts as ridden
    /// even while the chain's moving flag waits for the activity (`TripTotals.rolling`):
    /// 3–6× the speed noise of a standing receiver (0.05–0.1 m/s), under any real rolling
    /// (creeping in a queue ≈ 0.5 m/s, walking the bike ≈ 1 m/s).
    public var dopplerRollingSpeed: Double = 0.3

    // MARK: Obstacles
    public var obstacle = ObstacleDetectorConfiguration.bicycle
    /// This device's calibration from the rider's answers (SensitivityCalibration).
    public var sensitivity = DetectorSensitivity.factory
    /// No obstacle detection below this speed (pushing, standing, mounting).
    public var obstacleMinSpeed: Double = 2.0
    /// Detections closer than this to the previous one are the same obstacle.
    public var obstacleMergeMeters: Double = 5

    // MARK: Road quality
    public var roadQualityStretchMeters: Double = 50
    public var roadQuality = RoadQualityThresholds()

    // MARK: Crash
    /// Opt-in: no SOS is ever raised unless this is true.
    public var crashDetectionEnabled: Bool = false
    public var crash = CrashDetectorConfiguration()

    /// Creates the defaults above (crash detection off).
    public init() {}
}
