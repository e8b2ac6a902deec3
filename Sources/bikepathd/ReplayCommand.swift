import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathSensors
import Foundation

/// Replays a recording through the whole chain, exactly as the live daemon runs it
/// (same `Pipeline`, same batching seam), and prints the detected events and a summary
/// per trip. This is the demo: it needs no hardware.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a recording through the filter chain; print trips and events.",
        discussion: "Progress goes to stderr; events and summaries to stdout."
    )

    @Argument(help: "A recording (.bpr), e.g. Recordings/allthedocks-GX010056.bpr.") var recording: String
    @Flag(help: "One JSON object per output line on stdout instead of the human summary.") var json = false
    @Flag(help: "Enable crash (SOS) detection, which is opt-in.") var crashDetection = false
    @Option(help: "Records handed to the chain per batch (outputs do not depend on it).") var batch = 4096

    @Option(
        name: .customLong("db"),
        help: ArgumentHelp(
            "Apply the detector calibration of this store (`bikepathd calibration show`); default: factory.", valueName: "path"))
    var databasePath: String?

    @Option(help: "Detected candidates a trip's review asks about, best first (\(ConfigurationKey.path(\.obstacles.reviewBudget))).")
    var reviewBudget = ReviewBudget.defaultBudget

    @Option(
        help: ArgumentHelp(
            "A configuration file whose [trip], [obstacles] and [crash] settings the chain uses, as `run` does; default: the chain's own defaults.",
            valueName: "file"))
    var config: String?

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be at least 1") }
        guard reviewBudget >= 0 else { throw ValidationError("--review-budget must be 0 or more") }
    }

    func run() throws {
        var configuration = config.map { configurationFile($0).pipelineConfiguration } ?? PipelineConfiguration()
        configuration.crashDetectionEnabled = configuration.crashDetectionEnabled || crashDetection
        try ImportCommand.reportingErrors {
            configuration.sensitivity = try RecordingChain.sensitivity(fromStore: databasePath)
            var printer = ReplayPrinter(json: json, reviewBudget: reviewBudget)
            try printer.replay(recording, configuration: configuration, batch: batch)
        }
    }
}
