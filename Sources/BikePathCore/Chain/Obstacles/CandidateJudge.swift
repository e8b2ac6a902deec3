/// A triggered event the judge kept, with the values the rider's review ranks by.
struct JudgedCandidate: Sendable, Equatable {
    var detection: ObstacleDetection
    /// Speed at the hit, m/s, when known.
    var speed: Double?
    /// Peak over the reporting threshold (≥ 1 at factory sensitivity).
    var strength: Double
    var severity: Double
    var confidence: Double
    var echo: Bool
}

/// Decides which triggered events are obstacles (docs/chain.md, "Candidates").
///
/// A bicycle on rough asphalt or setts triggers every few metres; what tells a hole from
/// texture is that its hit stands out of the texture around it, and that the rear wheel
/// hits it again `wheelbase / speed` later (0.15–0.5 s at 8–25 km/h) while rider motion
/// (pedalling, standing up, braking pitch) has no such echo. So the judge waits
/// `contextSeconds` after each hit, then measures:
/// - P, the hit's peak |y| in the obstacle band;
/// - σ, the RMS of y over the context before and after (the hit and its echo left out);
/// - E, the largest |y| at 0.8–1.2 × the two-wheel delay, and C, the largest at 1.7–2.3 and
///   2.7–3.3 × that delay, where no wheel can be: the echo is present when E ≥ contrast·C
///   and E ≥ echoSigmas·σ.
/// It keeps the event when P ≥ T = min(max(contextSigmas·σ, reportPeak) × (echo ? factor : 1),
/// max(smoothRoadSigmas·σ, smoothRoadPeak)): the absolute floor guards rough roads, whose
/// texture has heavy tails; on a smooth road a hit that stands 7 σ out of it is enough.
struct CandidateJudge: Sendable {
    let configuration: ObstacleDetectorConfiguration
    /// Recent obstacle-band values by sample index (power-of-two ring: 16 s at 1 kHz).
    var ring: [Float]
    let mask: Int
    /// Samples appended so far (the next sample's index).
    var count = 0
    var pending: [Pending] = []
    /// Events that trigger on an accepted hit's own echo are part of that crossing.
    var echoOfAcceptedUntil = Int.min

    struct Pending: Sendable, Equatable {
        var detection: ObstacleDetection
        var speed: Double?
        var rate: Double
        var decideAt: Int
    }

    init(configuration: ObstacleDetectorConfiguration, capacity: Int = 1 << 14) {
        self.configuration = configuration
        ring = [Float](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    @inline(__always)
    mutating func append(_ y: Float) {
        ring.withUnsafeMutableBufferPointer { $0[count & mask] = y }
        count &+= 1
    }

    /// A detection has closed at the current sample; it is judged once its context is in.
    mutating func add(_ d: ObstacleDetection, speed: Double?, rate: Double) {
        let after = Int(configuration.contextSeconds * rate)
        pending.append(Pending(detection: d, speed: speed, rate: rate, decideAt: max(count, d.peakIndex + after)))
    }

    /// Judges every pending event whose context is complete (all of them at the end of input).
    @inline(__always)
    mutating func decide(flush: Bool = false, into out: inout [JudgedCandidate]) {
        while let first = pending.first, flush || first.decideAt <= count {
            pending.removeFirst()
            if let kept = judge(first) { out.append(kept) }
        }
    }

    func value(_ i: Int) -> Float { ring[i & mask] }

    /// Where the rear wheel's hit can be: 0.8–1.2 × the two-wheel delay after the peak
    /// (speed error and wheelbase spread), in sample indexes.
    static func echoSpan(after i: Int, delay: Int) -> ClosedRange<Int> {
        (i + Int(0.8 * Double(delay)))...(i + Int(1.2 * Double(delay)))
    }

    /// Largest |y| over sample indexes [from, to), clipped to what the ring still holds.
    func peak(from: Int, to: Int) -> Float {
        var m: Float = 0
        var i = max(from, count - ring.count, 0)
        while i < min(to, count) { m = max(m, abs(value(i))); i += 1 }
        return m
    }

    /// The values from `before` samples before index `i` to `after` samples after it, clipped
    /// to what the ring holds (the start of input, the end at a flush), and where `i` lies
    /// in them.
    func window(around i: Int, before: Int, after: Int) -> (samples: [Float], peakIndex: Int) {
        let from = max(i - before, count - ring.count, 0)
        let to = min(i + after + 1, count)
        var out: [Float] = []
        out.reserveCapacity(max(0, to - from))
        var j = from
        while j < to { out.append(value(j)); j += 1 }
        return (out, i - from)
    }

    func sumSquares(from: Int, to: Int) -> (Double, Int) {
        var s = 0.0, n = 0
        var i = max(from, count - ring.count, 0)
        while i < min(to, count) { let v = Double(value(i)); s += v * v; n += 1; i += 1 }
        return (s, n)
    }

    mutating func judge(_ p: Pending) -> JudgedCandidate? {
        let c = configuration
        let d = p.detection
        let i = d.peakIndex
        if i <= echoOfAcceptedUntil { return nil }
        let rate = p.rate
        let context = Int(c.contextSeconds * rate)
        // The two-wheel delay in samples, when the speed says where to look.
        let delay: Int? = p.speed.flatMap { v in
            guard v >= 1, v.isFinite else { return nil }
            let n = Int((c.wheelbaseMeters / v * rate).rounded())
            return n >= 3 ? n : nil
        }
        let gapBefore = Int(0.35 * rate)
        let gapAfter = (delay.map { Int(1.3 * Double($0)) } ?? 0) + Int(0.15 * rate)
        let (pre, nPre) = sumSquares(from: i - context, to: i - gapBefore)
        let (post, nPost) = sumSquares(from: i + gapAfter, to: i + context)
        let sigma = nPre + nPost >= 10 ? Float(((pre + post) / Double(nPre + nPost)).squareRoot()) : c.initialNoise
        var echo = false
        if let delay {
            func lag(_ f: Double) -> Int { i + Int(f * Double(delay)) }
            let span = Self.echoSpan(after: i, delay: delay)
            let e = peak(from: span.lowerBound, to: span.upperBound + 1)
            let control = max(peak(from: lag(1.7), to: lag(2.3) + 1), peak(from: lag(2.7), to: lag(3.3) + 1))
            echo = e >= c.echoContrast * control && e >= c.echoSigmas * sigma
        }
        let floor = c.reportPeak * Float(p.speed.map { chainPow(min(max($0, 2), 10) / 5, Double(c.reportPeakSpeedExponent)) } ?? 1)
        let roughRoadBar = max(c.contextSigmas * sigma, floor) * (echo ? c.echoThresholdFactor : 1)
        let smoothRoadBar = max(c.smoothRoadSigmas * sigma, c.smoothRoadPeak)
        let threshold = min(roughRoadBar, smoothRoadBar)
        let strength = Double(d.peak / threshold)
        // Judged at factory sensitivity here; the pipeline applies the device's calibration.
        guard strength >= DetectorSensitivity.bounds.lowerBound else { return nil }
        if strength >= 1, let delay { echoOfAcceptedUntil = i + Int(1.3 * Double(delay)) }
        var kept = d
        kept.kind = kind(of: d, threshold: threshold, delay: delay, rate: rate)
        return JudgedCandidate(
            detection: kept, speed: p.speed, strength: strength,
            severity: Self.severity(peak: Double(d.peak), speed: p.speed),
            confidence: Self.confidence(strength: strength, echo: echo, speedKnown: delay != nil),
            echo: echo)
    }

    /// The kind from the signal around the hit (the trigger's first swing is unreliable: a
    /// pothole's drop, 2–5 m/s², often stays under it, so its hit came first). A wheel
    /// drops into a pothole before hitting its far edge and drops off a bump after the hit:
    /// pothole when the mean over the 0.25 s before the peak (the last 15 ms left out) is
    /// lower than over the same time after it (cut at half the two-wheel delay, before the
    /// rear wheel's own drop). Three or more separate hits at the reporting threshold within
    /// a second of the peak (at least 0.1 s apart, so one hit's ringing counts once, the
    /// echo left out) make an irregularity: a broken patch, not one obstacle.
    func kind(of d: ObstacleDetection, threshold: Float, delay: Int?, rate: Double) -> ObstacleKind {
        let i = d.peakIndex
        let gap = max(1, Int(0.015 * rate))
        let span = min(Int(0.25 * rate), delay.map { $0 / 2 } ?? Int.max)
        let echo = delay.map { Self.echoSpan(after: i, delay: $0) }
        let minimumSeparation = Int(0.1 * rate)
        var hits = 0
        var lastHit: Int?
        var j = max(i - Int(rate), count - ring.count, 0)
        while j < min(i + Int(rate), count) {
            defer { j += 1 }
            if echo?.contains(j) == true { continue }
            if abs(value(j)) >= threshold && lastHit.map({ j - $0 >= minimumSeparation }) ?? true { hits += 1; lastHit = j }
        }
        if hits >= 3 { return .irregularity }
        return mean(from: i - span, to: i - gap) < mean(from: i + gap, to: i + span) ? .pothole : .bump
    }

    func mean(from: Int, to: Int) -> Float {
        var s: Float = 0, n = 0
        var i = max(from, count - ring.count, 0)
        while i < min(to, count) { s += value(i); n += 1; i += 1 }
        return n > 0 ? s / Float(n) : 0
    }

    /// Severity, 0…1: the peak normalised to 5 m/s (18 km/h) — the same hole throws the
    /// bar about in proportion to speed — mapped by P₅ / (P₅ + 10): a 1 g jolt at 18 km/h
    /// is 0.5, 2.5 g is 0.71. Speed unknown: the peak as measured.
    static func severity(peak: Double, speed: Double?) -> Double {
        let normalised = peak * (speed.map { 5 / min(max($0, 2), 12) } ?? 1)
        return normalised / (normalised + 10)
    }

    /// Confidence, 0…1: a logistic in the strength, 0.5 at the threshold and 0.88 at 1.5×
    /// it; the two-wheel echo halves the remaining doubt, its absence (speed known, so it
    /// was looked for) takes a fifth off.
    static func confidence(strength: Double, echo: Bool, speedKnown: Bool) -> Double {
        let base = 1 / (1 + chainExp(-4 * (strength - 1)))
        if echo { return 1 - (1 - base) / 2 }
        return speedKnown ? base * 0.8 : base
    }
}
