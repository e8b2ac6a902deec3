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

    // MARK: Obstacles
    public var obstacle = ObstacleDetectorConfiguration.bicycle
    /// This device's calibration from the rider's answers (SensitivityCalibration).
    public var sensitivity = DetectorSensitivity.factory
    /// No obstacle detection below this speed (pushing, standing, mounting).
    public var obstacleMinSpeed: Double = 2.0
    /// Detections closer than this to the previous one are the same obstacle.
    public var obstacleMergeMeters: Double = 5
    /// Seconds of vertical acceleration kept around an event for review.
    public var obstacleWindowSeconds: Double = 1.0

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
