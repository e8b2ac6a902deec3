/// Parameters of the obstacle detector: a trigger on vertical acceleration, then (in the
/// chain) a judge that keeps only what stands out of the road's texture or shows the
/// two-wheel signature. docs/chain.md ("Obstacles") gives every value and its reason.
///
/// The defaults (used by `detect(verticalAcceleration:)` and `bikepathd detect`) were chosen
/// by two-fold cross-validation on the González 2017 car windows (docs/evaluation.md), not
/// per file; the chain uses `.bicycle`.
public struct ObstacleDetectorConfiguration: Sendable, Equatable {
    // MARK: Trigger (every sample)
    /// Band-pass edges, Hz: below 1 Hz is posture and slope; the upper edge of the road
    /// band (road quality, the bare-series detector) is 20 Hz.
    public var highPassHz: Float = 1
    public var lowPassHz: Float = 20
    /// Upper edge of the band obstacles are triggered and judged in, Hz; nil: the road
    /// band's. (A one-pole corner above the IMU's Nyquist rate simply passes the whole band.)
    public var obstacleLowPassHz: Float?
    /// Trigger when |band-passed| exceeds this many robust standard deviations of the
    /// road's recent vibration…
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

    // MARK: Judge (the chain, per triggered event; docs/chain.md "Candidates")
    /// A candidate's peak must reach this many RMS of the texture around it (the 2 s
    /// before and after, without the event and its echo)…
    public var contextSigmas: Float = 4
    /// …and this level, m/s², in the obstacle band (a rough road's texture has heavy tails:
    /// on the real ride its upward peaks reach 10–10.6 m/s² at 4–6 σ).
    public var reportPeak: Float = 11.5
    /// The floor scales with speed as (v / 5 m/s)^this, v clamped to 2–10 m/s: the same hole
    /// throws the bar about less when ridden slower.
    public var reportPeakSpeedExponent: Float = 0
    /// On a smooth road a hit need not reach `reportPeak`: it is also kept when it reaches
    /// this many RMS of the texture around it (the ride's texture peaks stay under 7 σ)…
    public var smoothRoadSigmas: Float = 7
    /// …and this level, m/s² (the lower of the two bars applies; 7 σ ≥ 11.5 m/s² from
    /// σ = 1.64 m/s² on, so a rough road keeps the absolute floor).
    public var smoothRoadPeak: Float = 8
    /// With the two-wheel echo present both requirements are lowered by this factor.
    public var echoThresholdFactor: Float = 0.7
    /// The echo counts when the peak `wheelbase / speed` after the hit (±20 %) is at least
    /// this many times the largest peak at lags where no wheel can be (2× and 3× the delay)…
    public var echoContrast: Float = 2
    /// …and at least this many RMS of the texture.
    public var echoSigmas: Float = 3
    /// Front-to-rear axle distance, m: 1.0–1.1 on city, touring and road bikes.
    public var wheelbaseMeters: Double = 1.05
    /// Texture measured this long before and after a candidate's peak, s; the decision is
    /// that much later than the hit (the obstacle is reported a fix or two later).
    public var contextSeconds: Double = 2

    // MARK: Review window (what the rider's review plots)
    /// Each event keeps the obstacle-band signal from this long before its peak sample…
    /// 0.25 s is the span the kind is read from (the wheel's drop into a hole before the
    /// hit of its far edge).
    public var windowBeforeSeconds: Double = 0.25
    /// …to this long after it, so the plot shows the rear wheel's hit as well: it comes
    /// `wheelbaseMeters` / speed later, 0.105 s at 10 m/s and 0.525 s at 2 m/s (the slowest
    /// speed detection runs at), looked for up to 1.2× that (0.63 s); 0.75 s leaves 0.12 s
    /// of its ringing. 1 s in all: 200 samples (800 bytes) at 200 Hz.
    public var windowAfterSeconds: Double = 0.75

    /// Creates the defaults above; the chain uses `bicycle`.
    public init() {}

    /// The chain's default on a bicycle. A bike's continuous vibration is far rougher than
    /// the car windows above and every sample is tested, so the trigger only gathers
    /// candidates (3 σ, 5 m/s²) and the judge decides. The obstacle band is the 1 Hz
    /// high-pass alone (its 1 kHz corner lies above the Nyquist rate of a bike computer's
    /// IMU): a tyre hitting an edge lasts contact / speed = 12–64 ms (0.08–0.16 m at
    /// 2.5–7 m/s), 2–13 samples at 200 Hz. A one-pole "80 Hz" low-pass, whose coefficient
    /// dt/(τ+dt) acts as 40 Hz at 200 Hz, took a quarter off a 12 ms hit, while the texture
    /// it rides on (mostly below 20 Hz) keeps its peaks.
    public static var bicycle: ObstacleDetectorConfiguration {
        var c = ObstacleDetectorConfiguration()
        c.obstacleLowPassHz = 1000
        c.thresholdSigmas = 3
        c.minimumPeak = 5
        return c
    }
}
