import ArgumentParser
import BikePathCLI
import BikePathDaemon

/// `bikepathd inspect FILE`: header, record counts, time span and any damage of a recording.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a recording's header, record counts, time span and any damage (truncation, corruption).",
        discussion: "Exit codes: 0 intact; 1 not a readable recording; 2 damaged (what could be read is shown)."
    )

    @Argument(help: "A recording (.bpr).") var file: String

    func run() throws {
        try ImportCommand.reportingErrors {
            let inspection = try RecordingInspection(path: file)
            print(inspection.text)
            if !inspection.problems.isEmpty { throw ExitCode(2) }
        }
    }
}
