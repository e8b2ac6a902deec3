/// How much this device's detector must see before it reports a candidate, per kind, as a
/// multiple of the factory threshold: a candidate is reported when its `strength` is at
/// least `scale(for: kind)`. 1 everywhere is the factory setting.
public struct DetectorSensitivity: Sendable, Equatable, Codable {
    /// Calibration never moves a scale outside these bounds: below 0.8 the detector would
    /// report ordinary road texture (about 4 σ instead of 5 on the chain's statistic); above
    /// 2 a hole that throws the bar 10 m/s² at walking pace would no longer be reported.
    public static let bounds: ClosedRange<Double> = 0.8...2.0
    /// Kinds not listed use 1.
    public var scales: [ObstacleKind: Double]

    /// Creates a sensitivity; each scale is clamped into `bounds` (0.8…2).
    public init(scales: [ObstacleKind: Double] = [:]) {
        self.scales = scales.mapValues { min(max($0, Self.bounds.lowerBound), Self.bounds.upperBound) }
    }

    public static let factory = DetectorSensitivity()

    /// The scale for `kind`: a candidate is reported when its strength is at least this (1 when
    /// not listed).
    public func scale(for kind: ObstacleKind) -> Double { scales[kind] ?? 1 }

    public var isFactory: Bool { scales.values.allSatisfy { $0 == 1 } }
}

/// One answer of the rider about one detected candidate of an earlier draft.
public struct CandidateAnswer: Sendable, Equatable {
    public var kind: ObstacleKind
    /// The candidate's `ObstacleEvent.strength` (at factory sensitivity).
    public var strength: Double
    /// true: the rider kept it; false: the rider dropped it.
    public var confirmed: Bool

    /// Creates an answer from its fields.
    public init(kind: ObstacleKind, strength: Double, confirmed: Bool) {
        self.kind = kind
        self.strength = strength
        self.confirmed = confirmed
    }
}

/// Calibration from the rider's answers: a mount, a tyre pressure or a
/// suspension fork change what a hole looks like, so the reporting threshold of each kind
/// is fitted to what this rider kept and dropped.
///
/// Rule (deterministic, documented in docs/chain.md, "Calibration"): over the most recent
/// `window` answers, for each kind choose the scale `s` on a 0.05 grid within
/// `DetectorSensitivity.bounds` that minimises
///
///     cost(s) = #dropped with strength ≥ s  +  missWeight × #kept with strength < s
///
/// i.e. the number of false candidates it would still report plus twice the number of real
/// obstacles it would lose. Ties go to the scale closest to 1, then the lower one. A kind
/// with fewer than `minimumAnswers` answers of its own uses the fit over all kinds pooled;
/// with fewer than that in total, everything stays at the factory setting.
public enum SensitivityCalibration {
    public static let window = 200
    public static let minimumAnswers = 5
    /// Losing a real obstacle costs twice as much as showing a false one: the rider can
    /// drop a false candidate in one tap, but cannot review a hole that was never shown.
    public static let missWeight = 2.0

    /// The sensitivity fitted to the last `window` (200) answers by the rule above; `.factory`
    /// with fewer than `minimumAnswers` (5).
    public static func calibrate(_ answers: [CandidateAnswer]) -> DetectorSensitivity {
        let recent = answers.suffix(window)
        guard recent.count >= minimumAnswers else { return .factory }
        let pooled = bestScale(recent)
        var scales: [ObstacleKind: Double] = [:]
        for kind in ObstacleKind.allCases {
            let own = recent.filter { $0.kind == kind }
            scales[kind] = own.count >= minimumAnswers ? bestScale(own) : pooled
        }
        return DetectorSensitivity(scales: scales)
    }

    static func bestScale(_ answers: some Collection<CandidateAnswer>) -> Double {
        let lower = DetectorSensitivity.bounds.lowerBound, upper = DetectorSensitivity.bounds.upperBound
        let steps = Int(((upper - lower) / 0.05).rounded())
        var best = 1.0, bestCost = Double.infinity
        for i in 0...steps {
            let s = ((lower + Double(i) * 0.05) * 100).rounded() / 100
            var cost = 0.0
            for a in answers {
                if a.confirmed { if a.strength < s { cost += missWeight } } else if a.strength >= s { cost += 1 }
            }
            // Strictly better, or as good and closer to the factory setting (ties at equal
            // distance keep the lower scale, reached first).
            if cost < bestCost || (cost == bestCost && abs(s - 1) < abs(best - 1)) {
                best = s; bestCost = cost
            }
        }
        return best
    }
}
