/// Roughness thresholds on the speed-normalised RMS vertical acceleration, m/s².
/// Anchored on the ISO 2631-1 (1997) Annex C comfort bands for RMS acceleration:
/// < 0.8 up to "fairly uncomfortable", 0.8–1.6 "uncomfortable", 1.6–2.5 "very
/// uncomfortable", > 2.5 "extremely uncomfortable" (bands rounded to their edges).
public struct RoadQualityThresholds: Sendable, Equatable {
    public var optimalBelow: Double = 0.8
    public var mediumBelow: Double = 1.6
    public var sufficientBelow: Double = 2.5
    /// Speed the index is normalised to, m/s (18 km/h, a typical urban cycling speed).
    public var referenceSpeed: Double = 5
    /// RMS vertical acceleration on a given random road grows roughly linearly with speed
    /// (road profile PSD ∝ n⁻² gives acceleration RMS ∝ v^1.5; a tyre's filtering lowers
    /// it; 1.0 is the usual compromise).
    public var speedExponent: Double = 1.0
    /// Creates the ISO 2631-1 thresholds above (0.8, 1.6, 2.5 m/s²).
    public init() {}

    /// The status of a stretch with this roughness (m/s², speed-normalised).
    public func status(for roughness: Double) -> PathStatus {
        if roughness < optimalBelow { return .optimal }
        if roughness < mediumBelow { return .medium }
        if roughness < sufficientBelow { return .sufficient }
        return .requiresMaintenance
    }
}

/// Accumulates band-passed vertical acceleration over fixed-length stretches of a trip.
struct RoadQualityEstimator: Sendable {
    let stretchMeters: Double
    let thresholds: RoadQualityThresholds
    var sumSquares: Double = 0
    var seconds: Double = 0
    var meters: Double = 0
    /// ∫ speed dt from the fixes' (Doppler) speed: the mean speed for normalisation,
    /// unaffected by position jitter that inflates distance/time at low speed.
    var speedIntegral: Double = 0
    var lastTime: SampleTime?
    var startTime: SampleTime?
    var start: Coordinate?
    /// Accumulated in Float per sample and folded into Double at each fix, keeping the hot
    /// loop in Float without losing precision over a long stretch.
    var pendingSquares: Float = 0
    var pendingSeconds: Float = 0

    init(stretchMeters: Double, thresholds: RoadQualityThresholds) {
        self.stretchMeters = stretchMeters
        self.thresholds = thresholds
    }

    @inline(__always)
    mutating func add(vibration y: Float, dt: Float) {
        pendingSquares += y * y * dt
        pendingSeconds += dt
    }

    /// Called at each fix while the trip is moving; returns a segment when one is complete.
    mutating func advance(
        meters step: Double, speed fixSpeed: Double, at time: SampleTime,
        coordinate: Coordinate
    ) -> RoadQualitySegment? {
        sumSquares += Double(pendingSquares); seconds += Double(pendingSeconds)
        pendingSquares = 0; pendingSeconds = 0
        defer { lastTime = time }
        if startTime == nil { startTime = time; start = coordinate; return nil }
        meters += step
        if let lastTime { speedIntegral += fixSpeed * time.secondsSince(lastTime) }
        guard meters >= stretchMeters, seconds > 0, let startTime else { return nil }
        let rms = (sumSquares / seconds).squareRoot()
        let speed = max(speedIntegral / max(time.secondsSince(startTime), 1e-3), 1)
        let roughness = rms * chainPow(thresholds.referenceSpeed / speed, thresholds.speedExponent)
        let segment = RoadQualitySegment(
            startTime: startTime, endTime: time, start: start, end: coordinate,
            lengthMeters: meters, roughness: roughness,
            status: thresholds.status(for: roughness))
        self.startTime = time; start = coordinate
        meters = 0; sumSquares = 0; seconds = 0; speedIntegral = 0
        return segment
    }

    /// A pause or a gap breaks the stretch: start afresh at the next fix.
    mutating func reset() {
        startTime = nil; start = nil; lastTime = nil; meters = 0; sumSquares = 0; seconds = 0; speedIntegral = 0
        pendingSquares = 0; pendingSeconds = 0
    }
}
