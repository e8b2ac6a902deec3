import BikePathCore
import Testing

@Suite("Review budget: at most N detected candidates, best severity × confidence first; rider marks always shown")
struct ReviewBudgetTests {
    func candidate(
        _ source: ObstacleSource = .detected, severity: Double, confidence: Double, strength: Double = 1,
        at seconds: Double
    ) -> ReviewCandidate {
        ReviewCandidate(
            source: source, severity: severity, confidence: confidence, strength: strength,
            time: SampleTime(nanoseconds: Int64(seconds * 1e9)))
    }

    @Test func ranksByScoreAndHoldsBackTheRest() {
        let c = [
            candidate(severity: 0.9, confidence: 0.2, at: 1),  // 0.18
            candidate(severity: 0.5, confidence: 0.8, at: 2),  // 0.40
            candidate(.rider, severity: 0, confidence: 1, at: 3),
            candidate(severity: 0.3, confidence: 0.3, at: 4),  // 0.09
            candidate(severity: 0.6, confidence: 0.9, at: 5),  // 0.54
        ]
        let s = ReviewBudget.select(c, budget: 2)
        #expect(s.asked == [4, 1])
        #expect(s.heldBack == [0, 3])
        #expect(s.riderMarks == [2], "the rider's mark is shown and not counted against the budget")
    }

    @Test func tiesGoToTheStrongerThenTheEarlier() {
        let c = [
            candidate(severity: 0, confidence: 0, strength: 1.2, at: 9),
            candidate(severity: 0, confidence: 0, strength: 3.0, at: 8),
            candidate(severity: 0, confidence: 0, strength: 1.2, at: 7),
        ]
        #expect(ReviewBudget.select(c, budget: 10).asked == [1, 2, 0])
    }

    @Test func zeroBudgetHoldsBackEveryDetection() {
        let c = [candidate(severity: 1, confidence: 1, at: 1), candidate(.rider, severity: 0, confidence: 1, at: 2)]
        let s = ReviewBudget.select(c, budget: 0)
        #expect(s.asked.isEmpty && s.heldBack == [0] && s.riderMarks == [1])
    }
}
