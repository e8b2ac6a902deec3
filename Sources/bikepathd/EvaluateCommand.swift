import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon

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
    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "Apply the detector calibration of this store; default: factory.", valueName: "path"))
    var databasePath: String?
    @Flag(help: "One JSON object instead of text.") var json = false

    func run() throws {
        try ImportCommand.reportingErrors {
            let report = try EvaluationReport(recordings: recordings, sensitivity: try RecordingChain.sensitivity(fromStore: databasePath))
            report.print(json: json)
        }
    }
}
