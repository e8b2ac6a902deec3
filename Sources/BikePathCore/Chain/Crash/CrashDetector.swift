/// Parameters of crash detection. A crash is a hard impact while riding, then the bike
/// lying at a different angle, then stillness — all within the R18 deadline.
public struct CrashDetectorConfiguration: Sendable, Equatable {
    /// |a| above this is an impact, m/s² (4 g; a bike's own pothole hits at the bar rarely
    /// reach it, and anything reaching it without the rest of the pattern is ignored).
    public var impactThreshold: Float = 39.2
    /// The impact only counts when the last fix (at most 5 s old) was at least this fast:
    /// dropping a parked bike must not raise an alarm.
    public var minSpeed: Double = 2.5
    /// Gravity after the impact must differ from before by at least this angle, degrees.
    public var minTiltDegrees: Float = 45
    /// Stillness: |a| within this of g and gyro below `stillGyro` rad/s, for `stillSeconds`.
    public var stillAccelTolerance: Float = 1.5
    public var stillGyro: Float = 0.5
    public var stillSeconds: Float = 1.5
    /// R18 (TrackMe): the alarm is raised no later than this after the impact, or not at all.
    public var deadlineSeconds: Double = 5
    /// After an alarm, no new one for this long.
    public var cooldownSeconds: Double = 60
    /// Creates the defaults above: a 4 g impact at 2.5 m/s or more, 45° tilt, 1.5 s still,
    /// alarm within 5 s.
    public init() {}
}

/// Sample-time driven crash state machine: armed → impact → (tilted + still) → SOS.
struct CrashDetector: Sendable {
    let configuration: CrashDetectorConfiguration
    let cosMinTilt: Float
    var impactTime: SampleTime?
    var impactPeak: Float = 0
    var upBefore: (Float, Float, Float) = (0, 0, 1)
    var stillFor: Float = 0
    var cooldownUntil = SampleTime(nanoseconds: .min)
    /// Up vectors sampled every half second, so the pre-impact attitude is one the
    /// impact itself has not yet disturbed.
    var upRecent: (Float, Float, Float) = (0, 0, 1)
    var upOlder: (Float, Float, Float) = (0, 0, 1)
    var nextUpSnapshot = SampleTime(nanoseconds: .min)
    /// Fast low-pass of the raw acceleration: where gravity points once the bike lies still.
    var restX: Float = 0, restY: Float = 0, restZ: Float = 9.81
    var lastDt: Float = -1
    var restGain: Float = 0

    init(configuration: CrashDetectorConfiguration) {
        self.configuration = configuration
        cosMinTilt = Float(chainCos(Double(configuration.minTiltDegrees) * Double.pi / 180))
    }

    /// - Parameter speed: smoothed speed of a fix at most 5 s old, nil when there is none.
    @inline(__always)
    mutating func step(
        time: SampleTime, accel a: Vector3, gyro: Vector3?, gravity: GravityEstimator,
        speed: Double?, dt: Float
    ) -> (impact: SampleTime, peak: Float)? {
        let mag2 = a.x * a.x + a.y * a.y + a.z * a.z
        if dt != lastDt { lastDt = dt; restGain = dt / (0.3 + dt) }
        let k = restGain
        restX += k * (a.x - restX); restY += k * (a.y - restY); restZ += k * (a.z - restZ)
        guard let impact = impactTime else {
            if time >= nextUpSnapshot {
                upOlder = upRecent; upRecent = gravity.up
                nextUpSnapshot = time.advanced(bySeconds: 0.5)
            }
            let threshold = configuration.impactThreshold
            if mag2 > threshold * threshold, time >= cooldownUntil, let speed, speed >= configuration.minSpeed {
                impactTime = time; impactPeak = mag2.squareRoot(); upBefore = upOlder; stillFor = 0
            }
            return nil
        }
        let mag = mag2.squareRoot()
        if mag > impactPeak { impactPeak = mag }
        if time.secondsSince(impact) > configuration.deadlineSeconds {
            impactTime = nil  // no lying-still pattern in time: a pothole or a recovery
            return nil
        }
        let gyroQuiet: Bool
        if let w = gyro {
            gyroQuiet = w.x * w.x + w.y * w.y + w.z * w.z < configuration.stillGyro * configuration.stillGyro
        } else {
            gyroQuiet = true
        }
        if abs(mag - 9.81) < configuration.stillAccelTolerance && gyroQuiet { stillFor += dt } else { stillFor = 0 }
        guard stillFor >= configuration.stillSeconds else { return nil }
        let rn = (restX * restX + restY * restY + restZ * restZ).squareRoot()
        guard rn > 1 else { return nil }
        let cosTilt = (restX * upBefore.0 + restY * upBefore.1 + restZ * upBefore.2) / rn
        guard cosTilt < cosMinTilt else { return nil }
        impactTime = nil
        cooldownUntil = time.advanced(bySeconds: configuration.cooldownSeconds)
        return (impact, impactPeak)
    }
}
