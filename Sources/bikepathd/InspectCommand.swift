import ArgumentParser
import BikePathCore
import BikePathSensors

/// `bikepathd inspect FILE`: header, record counts, time span and any damage of a recording.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a recording's header, record counts, time span and any damage (truncation, corruption).",
        discussion: "Exit codes: 0 intact; 1 not a readable recording; 2 damaged (what could be read is shown)."
    )

    @Argument(help: "A recording (.bpr).")
    var file: String

    func run() throws {
        try ImportCommand.reportingErrors {
            let reader = try RecordingReader(path: file)
            var first: SampleTime?, last: SampleTime?
            var backwards = 0
            let report = try reader.forEach { r in
                if first == nil { first = r.time }
                if let l = last, r.time < l { backwards += 1 }
                last = r.time
            }
            print("file: \(file)")
            print("format: version \(RecordingFormat.version)")
            print(reader.header.text, terminator: "")
            let s = report.statistics
            print("records: \(s.nmeaSentences) NMEA, \(s.imuSamples) IMU samples in \(s.imuBlocks) blocks, \(s.markers) markers, \(s.labels) rider labels, \(s.unknownRecordsSkipped) unknown skipped")
            if let first, let last {
                print("time: \(first.seconds) s to \(last.seconds) s (\(last - first) s)")
            }
            if backwards > 0 { print("note: \(backwards) records earlier than the one before them") }
            for p in report.problems { print("problem: \(p)") }
            print(report.problems.isEmpty ? "status: intact" : "status: damaged (\(report.problems.count) problem(s))")
            if !report.problems.isEmpty { throw ExitCode(2) }
        }
    }
}
