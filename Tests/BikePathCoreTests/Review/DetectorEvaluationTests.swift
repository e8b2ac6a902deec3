import BikePathCore
import Testing

@Suite("Detector evaluation: a detection matches a rider mark within [mark − 5 s, mark + 1 s] or 25 m along the track")
struct DetectorEvaluationTests {
    /// A straight track north at 5 m/s, one point a second from t = 0 to 120 s.
    let track: [ChainOutput] = (0...120).map { s in
        .trackPoint(
            TrackPoint(
                time: time(Double(s)), utc: nil,
                coordinate: Coordinate(latitude: 51.5 + Double(s) * 5 / 111_250, longitude: -0.1),
                altitudeMSL: nil, speed: 5))
    }

    static func event(_ seconds: Double, _ kind: ObstacleKind, _ source: ObstacleSource) -> ChainOutput {
        .obstacle(ObstacleEvent(time: time(seconds), kind: kind, peak: 0, energy: 0, source: source))
    }

    @Test func timeWindowIsAsymmetricAroundTheMark() {
        // Marks at 20, 40, 60, 80 s; detections 4.9 s before, 0.9 s after, 6 s before (31 m: outside
        // both), 1.5 s after (7.5 m along the track: inside by distance).
        let outputs =
            track + [
                Self.event(20, .pothole, .rider), Self.event(15.1, .pothole, .detected),
                Self.event(40, .bump, .rider), Self.event(40.9, .pothole, .detected),
                Self.event(60, .pothole, .rider), Self.event(54, .pothole, .detected),
                Self.event(80, .pothole, .rider), Self.event(81.5, .pothole, .detected),
            ]
        let s = DetectorEvaluation.score(outputs)
        #expect(s.labels == 4 && s.detections == 4)
        #expect(s.matchedLabels == 3)
        #expect(s.kindAgreed == 2, "the 40 s pair matched but the kinds differ")
        #expect(s.recall == 0.75 && s.precision == 0.75)
        #expect(abs(s.distanceMeters - 600) < 1)
        #expect(abs((s.candidatesPerKm ?? 0) - 4 / 0.6) < 0.01)
    }

    @Test func eachDetectionMatchesOneMarkAndTheNearestIsTaken() {
        // Two marks 2 s apart, one detection between: one match only; a second detection
        // nearer the second mark goes to it.
        let one = DetectorEvaluation.score(
            track + [
                Self.event(30, .bump, .rider), Self.event(32, .bump, .rider),
                Self.event(29, .bump, .detected),
            ])
        #expect(one.matchedLabels == 1 && one.recall == 0.5 && one.precision == 1)
        let two = DetectorEvaluation.score(
            track + [
                Self.event(30, .bump, .rider), Self.event(32, .bump, .rider),
                Self.event(29, .bump, .detected), Self.event(31.8, .bump, .detected),
            ])
        #expect(two.matchedLabels == 2)
    }

    @Test func distanceRuleCoversAStoppedRider() {
        // The rider passes a hole at 50 s, stops at 52 s, presses at 70 s: 18 s later but
        // only 10 m on along the track.
        var stopped = Array(track.prefix(53))
        for s in 53...80 {
            stopped.append(
                .trackPoint(
                    TrackPoint(
                        time: time(Double(s)), utc: nil,
                        coordinate: Coordinate(latitude: 51.5 + 52.0 * 5 / 111_250, longitude: -0.1),
                        altitudeMSL: nil, speed: 0)))
        }
        let s = DetectorEvaluation.score(stopped + [Self.event(50, .pothole, .detected), Self.event(70, .pothole, .rider)])
        #expect(s.matchedLabels == 1)
    }

    @Test func scoresPoolAcrossRecordings() {
        var a = DetectorEvaluation.Score(); a.labels = 2; a.matchedLabels = 1; a.detections = 4; a.distanceMeters = 1000
        var b = DetectorEvaluation.Score(); b.labels = 2; b.matchedLabels = 2; b.detections = 2; b.distanceMeters = 1000
        let t = a + b
        #expect(t.recall == 0.75 && t.precision == 0.5 && t.candidatesPerKm == 3)
        #expect(DetectorEvaluation.Score().recall == nil)
        var unlabelled = DetectorEvaluation.Score(); unlabelled.detections = 21; unlabelled.distanceMeters = 550
        #expect(unlabelled.precision == nil && unlabelled.recall == nil && unlabelled.candidatesPerKm != nil)
    }
}

private func time(_ seconds: Double) -> SampleTime { SampleTime(nanoseconds: Int64(seconds * 1e9)) }
