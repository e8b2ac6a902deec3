import Testing
@testable import BikePathCore

/// The calibration rule of docs/chain.md ("Calibration") on hand-made answer sets.
struct SensitivityCalibrationTests {
    static func answers(_ kind: ObstacleKind, kept: [Double], dropped: [Double]) -> [CandidateAnswer] {
        kept.map { CandidateAnswer(kind: kind, strength: $0, confirmed: true) }
            + dropped.map { CandidateAnswer(kind: kind, strength: $0, confirmed: false) }
    }

    @Test func tooFewAnswersKeepTheFactorySetting() {
        #expect(SensitivityCalibration.calibrate(Self.answers(.pothole, kept: [], dropped: [1.1, 1.2, 1.3, 1.1])) == .factory)
    }

    @Test func droppedWeakCandidatesRaiseThatKindsBarBelowWhatTheRiderKept() {
        let a = Self.answers(.irregularity, kept: [1.8, 2.5], dropped: [1.0, 1.05, 1.1, 1.2, 1.3, 1.4])
        let s = SensitivityCalibration.calibrate(a)
        let scale = s.scale(for: .irregularity)
        #expect(scale > 1.4 && scale <= 1.8, "hides every dropped candidate, keeps every kept one: \(scale)")
    }

    @Test func keptCandidatesNeverPushTheBarAboveThem() {
        let a = Self.answers(.pothole, kept: [1.0, 1.1, 1.2, 1.5, 2.0], dropped: [])
        #expect(SensitivityCalibration.calibrate(a).scale(for: .pothole) == 1)
    }

    @Test func aKindWithFewAnswersFollowsThePooledFit() {
        let a = Self.answers(.bump, kept: [], dropped: [1.0, 1.1, 1.2, 1.25, 1.3, 1.35]) + Self.answers(.pothole, kept: [1.6], dropped: [])
        let s = SensitivityCalibration.calibrate(a)
        #expect(s.scale(for: .pothole) == SensitivityCalibration.bestScale(a))
        #expect(s.scale(for: .bump) > 1.35)
    }

    @Test func scalesStayWithinTheirBounds() {
        // Dropped candidates stronger than the upper bound cannot be hidden: nothing to gain, no change.
        let strong = Self.answers(.debris, kept: [], dropped: Array(repeating: 9, count: 10))
        #expect(SensitivityCalibration.calibrate(strong).scale(for: .debris) == 1)
        let nearTop = Self.answers(.debris, kept: [], dropped: Array(repeating: 1.93, count: 10))
        #expect(SensitivityCalibration.calibrate(nearTop).scale(for: .debris) == 1.95)
        #expect(DetectorSensitivity(scales: [.bump: 0.1]).scale(for: .bump) == DetectorSensitivity.bounds.lowerBound)
        #expect(DetectorSensitivity(scales: [.bump: 7]).scale(for: .bump) == DetectorSensitivity.bounds.upperBound)
    }

    @Test func onlyTheMostRecentAnswersCount() {
        let old = Self.answers(.bump, kept: [], dropped: Array(repeating: 1.5, count: 300))
        let recent = Self.answers(.bump, kept: Array(repeating: 1.0, count: SensitivityCalibration.window), dropped: [])
        #expect(SensitivityCalibration.calibrate(old + recent).scale(for: .bump) == 1)
    }
}
