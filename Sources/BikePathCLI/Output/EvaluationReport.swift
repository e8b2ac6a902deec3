import BikePathCore
import BikePathDaemon
import BikePathSensors
import Foundation

/// `bikepathd evaluate`: the detector against the rider's marks in labelled
/// recordings (`DetectorEvaluation`), per recording and pooled.
public struct EvaluationReport: Sendable {
    /// One recording's score, or the pooled one (`recording` = "total").
    public struct Result: Sendable {
        public var recording: String
        public var score: DetectorEvaluation.Score
        public var recall: Double?
        public var precision: Double?
        public var candidatesPerKm: Double?

        init(_ recording: String, _ score: DetectorEvaluation.Score) {
            self.recording = recording
            self.score = score
            recall = score.recall
            precision = score.precision
            candidatesPerKm = score.candidatesPerKm
        }
    }

    public var recordings: [Result]
    public var total: Result

    /// Replays every recording through the chain with `sensitivity` and scores it.
    /// - Throws: `RecordingFileError` for a file that cannot be read.
    public init(recordings paths: [String], sensitivity: DetectorSensitivity) throws {
        var configuration = PipelineConfiguration()
        configuration.sensitivity = sensitivity
        recordings = try paths.map { path in
            var chain = RecordingChain(configuration: configuration)
            var outputs: [ChainOutput] = []
            _ = try chain.run(try RecordingReader(path: path)) { outputs += $0 }
            return Result(path, DetectorEvaluation.score(outputs))
        }
        total = Result("total", recordings.map(\.score).reduce(DetectorEvaluation.Score(), +))
    }

    /// The text form: marks, candidates, matches, recall, precision, candidates per km.
    /// `bikepathd evaluate`: the report on stdout (JSON with `json`), and a warning when no recording had a label.
    public func print(json: Bool) {
        Swift.print(json ? jsonText(EvaluationJSON(self)) : text)
        if total.score.labels == 0 { standardErrorLine("warning: no rider labels in these recordings: recall is undefined") }
    }

    public var text: String {
        func pct(_ x: Double?) -> String { x.map { String(format: "%5.1f %%", $0 * 100) } ?? "    -  " }
        func line(_ r: Result) -> String {
            let s = r.score
            return
                "\(r.recording)\n  marks \(s.labels), candidates \(s.detections), matched \(s.matchedLabels) (kind agreed \(s.kindAgreed)), "
                + String(format: "%.2f km", s.distanceMeters / 1000)
                + "\n  recall \(pct(r.recall))   precision \(pct(r.precision))   candidates per km "
                + (r.candidatesPerKm.map { String(format: "%.1f", $0) } ?? "-")
        }
        return
            (recordings.map(line) + [
                line(total),
                String(
                    format: "tolerance: %.0f s before to %.0f s after a mark, or %.0f m along the track",
                    DetectorEvaluation.secondsBefore, DetectorEvaluation.secondsAfter, DetectorEvaluation.metres),
            ])
            .joined(separator: "\n")
    }
}
