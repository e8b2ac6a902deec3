import ArgumentParser
import BikePathDaemon
import BikePathCore
import BikePathSensors
import Foundation

/// `bikepathd evaluate RECORDING…`: the detector against the rider's marks of labelled
/// recordings (DetectorEvaluation; tolerances in docs/evaluation.md).
struct EvaluateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Score the obstacle detector against the rider's marks in labelled recordings.",
        discussion: """
            A detection matches a mark within \(DetectorEvaluation.secondsBefore) s before to \
            \(DetectorEvaluation.secondsAfter) s after it, or within \(Int(DetectorEvaluation.metres)) m along \
            the track; one detection per mark. Prints recall, precision and candidates per km, per recording and pooled.
            """)

    @Argument(help: ArgumentHelp("Recordings with rider labels (bikepathd mark while recording).", valueName: "recording"))
    var recordings: [String]
    @Option(name: .customLong("db"), help: ArgumentHelp(
        "Apply the detector calibration of this store; default: factory.", valueName: "path"))
    var databasePath: String?
    @Flag(help: "One JSON object instead of text.") var json = false

    struct Result: Encodable {
        var recording: String
        var score: DetectorEvaluation.Score
        var recall: Double?
        var precision: Double?
        var candidatesPerKm: Double?

        init(_ recording: String, _ score: DetectorEvaluation.Score) {
            self.recording = recording
            self.score = score
            recall = score.recall
            precision = score.precision
            candidatesPerKm = score.candidatesPerKm
        }
    }

    struct Report: Encodable {
        var tolerance: [String: Double]
        var recordings: [Result]
        var total: Result
    }

    func run() throws {
        try ImportCommand.reportingErrors {
            var configuration = PipelineConfiguration()
            configuration.sensitivity = try RecordingChain.sensitivity(fromStore: databasePath)
            var results: [Result] = []
            for path in recordings {
                var chain = RecordingChain(configuration: configuration)
                var outputs: [ChainOutput] = []
                _ = try chain.run(try RecordingReader(path: path)) { outputs += $0 }
                results.append(Result(path, DetectorEvaluation.score(outputs)))
            }
            let total = Result("total", results.map(\.score).reduce(DetectorEvaluation.Score(), +))
            let report = Report(tolerance: ["seconds_before": DetectorEvaluation.secondsBefore,
                                            "seconds_after": DetectorEvaluation.secondsAfter,
                                            "metres": DetectorEvaluation.metres],
                                recordings: results, total: total)
            print(json ? jsonText(report) : Self.text(report))
            if total.score.labels == 0 {
                standardErrorLine("warning: no rider labels in these recordings: recall is undefined")
            }
        }
    }

    static func text(_ report: Report) -> String {
        func pct(_ x: Double?) -> String { x.map { String(format: "%5.1f %%", $0 * 100) } ?? "    -  " }
        func line(_ r: Result) -> String {
            let s = r.score
            return "\(r.recording)\n  marks \(s.labels), candidates \(s.detections), matched \(s.matchedLabels) (kind agreed \(s.kindAgreed)), "
                + String(format: "%.2f km", s.distanceMeters / 1000)
                + "\n  recall \(pct(r.recall))   precision \(pct(r.precision))   candidates per km "
                + (r.candidatesPerKm.map { String(format: "%.1f", $0) } ?? "-")
        }
        let t = report.tolerance
        return (report.recordings.map(line) + [line(report.total),
            String(format: "tolerance: %.0f s before to %.0f s after a mark, or %.0f m along the track",
                   t["seconds_before"] ?? 0, t["seconds_after"] ?? 0, t["metres"] ?? 0)]).joined(separator: "\n")
    }
}
