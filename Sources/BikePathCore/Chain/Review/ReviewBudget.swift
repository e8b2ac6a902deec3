/// One obstacle of a ride as the review budget sees it.
public struct ReviewCandidate: Sendable, Equatable {
    public var source: ObstacleSource
    public var severity: Double
    public var confidence: Double
    /// The detector's statistic (`ObstacleEvent.strength`): breaks ties of the score.
    public var strength: Double
    public var time: SampleTime

    /// Creates a candidate from its fields.
    public init(source: ObstacleSource, severity: Double, confidence: Double, strength: Double, time: SampleTime) {
        self.source = source
        self.severity = severity
        self.confidence = confidence
        self.strength = strength
        self.time = time
    }

    /// The candidate for an obstacle the chain reported (detected or a rider mark).
    public init(_ event: ObstacleEvent) {
        self.init(
            source: event.source, severity: event.severity, confidence: event.confidence,
            strength: event.strength, time: event.time)
    }

    /// What the ranking sorts by: how hard a hit, times how sure it is a real obstacle.
    public var score: Double { severity * confidence }
}

/// Which candidates of a ride the draft asks the rider about (docs/chain.md
/// "Review budget"): at most `budget` detected candidates, the highest
/// severity × confidence first (ties: the larger strength, then the earlier). The rest
/// are held back: stored, counted toward road quality, not asked about. The rider's own
/// marks are always shown and never count against the budget.
public enum ReviewBudget {
    /// The default of `obstacles.review_budget` (justified in docs/configuration.md).
    public static let defaultBudget = 10

    /// The split of a ride's candidates: asked, held back, and the rider's marks.
    public struct Selection: Sendable, Equatable {
        /// Indices into the input of the detected candidates to ask about, best first.
        public var asked: [Int]
        /// Indices of the detected candidates held back, best first.
        public var heldBack: [Int]
        /// Indices of the rider's marks, in input order.
        public var riderMarks: [Int]
    }

    /// Splits `candidates` by the rule above: at most `budget` detected ones are asked about.
    public static func select(_ candidates: [ReviewCandidate], budget: Int) -> Selection {
        let detected = candidates.indices.filter { candidates[$0].source == .detected }
        let ranked = detected.sorted { a, b in
            let x = candidates[a], y = candidates[b]
            if x.score != y.score { return x.score > y.score }
            if x.strength != y.strength { return x.strength > y.strength }
            if x.time != y.time { return x.time < y.time }
            return a < b
        }
        let cut = min(max(budget, 0), ranked.count)
        return Selection(
            asked: Array(ranked[..<cut]), heldBack: Array(ranked[cut...]),
            riderMarks: candidates.indices.filter { candidates[$0].source == .rider })
    }
}
