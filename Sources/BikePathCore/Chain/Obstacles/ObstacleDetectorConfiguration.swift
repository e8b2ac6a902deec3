/// Parameters of the obstacle detector. The defaults (used by `detect(verticalAcceleration:)`
/// and `bikepathd detect`) were chosen by two-fold cross-validation on the González 2017
/// windows (docs/evaluation.md), not per file; the chain uses `.bicycle`.
public struct ObstacleDetectorConfiguration: Sendable, Equatable {
    /// Band-pass edges, Hz: below 1 Hz is posture and slope, above 20 Hz frame ringing.
    public var highPassHz: Float = 1
    public var lowPassHz: Float = 20
    /// Trigger when |band-passed| exceeds this many robust standard deviations of the
    /// road's own recent vibration…
    public var thresholdSigmas: Float = 2
    /// …and at least this absolute level, m/s².
    public var minimumPeak: Float = 2.0
    /// Time constant of the road-noise tracker, s (long compared with one obstacle).
    public var noiseTimeConstant: Float = 5
    /// Noise level assumed before the tracker has seen the road, m/s² (σ).
    public var initialNoise: Float = 0.3
    /// An event ends after the signal stayed under the threshold this long, s.
    public var releaseSeconds: Float = 0.2
    /// Events at least this long with at least `irregularityMinPeaks` separate threshold
    /// crossings are a rough patch (irregularity), not a single pothole or bump.
    public var irregularityMinSeconds: Float = 0.6
    public var irregularityMinPeaks: Int = 4

    public init() {}

    /// The chain's default on a bicycle. A bike's continuous vibration is far rougher than
    /// the car windows above, and each sample is tested: 5 σ keeps the per-sample false
    /// alarm probability of Gaussian road noise near 6·10⁻⁷, so what triggers is an
    /// outlier of the road being ridden, not its ordinary texture.
    public static var bicycle: ObstacleDetectorConfiguration {
        var c = ObstacleDetectorConfiguration()
        c.thresholdSigmas = 5
        return c
    }
}
