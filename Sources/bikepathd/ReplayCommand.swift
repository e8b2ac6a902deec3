import ArgumentParser
import BikePathCore
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

    @Argument(help: "A recording (.bpr), e.g. Recordings/allthedocks-GX010056.bpr.")
    var recording: String

    @Flag(help: "One JSON object per output line on stdout instead of the human summary.")
    var json = false

    @Flag(help: "Enable crash (SOS) detection, which is opt-in.")
    var crashDetection = false

    @Option(help: "Records handed to the chain per batch (outputs do not depend on it).")
    var batch = 4096

    func validate() throws {
        guard batch > 0 else { throw ValidationError("--batch must be at least 1") }
    }

    func run() throws {
        try ImportCommand.reportingErrors {
            let reader = try RecordingReader(path: recording)
            var configuration = PipelineConfiguration()
            configuration.crashDetectionEnabled = crashDetection
            var pipeline = Pipeline(configuration: configuration)
            var printer = ReplayPrinter(json: json)
            var pending: [SensorRecord] = []
            pending.reserveCapacity(batch)
            var records = 0
            while let record = try reader.next() {
                if records == 0 { printer.origin = record.time }
                pending.append(record)
                records += 1
                if pending.count == batch {
                    printer.print(pipeline.process(pending))
                    pending.removeAll(keepingCapacity: true)
                }
            }
            printer.print(pipeline.process(pending))
            printer.print(pipeline.finish())
            printer.finish(recording: recording, records: records, report: reader.report, status: pipeline.status)
        }
    }
}
