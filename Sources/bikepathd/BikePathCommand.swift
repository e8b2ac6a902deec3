import ArgumentParser
import BikePathCLI

/// The entry point: synchronous, the command run as a task (`SynchronousMain` says why).
@main enum BikePathMain {
    static func main() { SynchronousMain.run { await BikePathCommand.main() } }
}

struct BikePathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikepathd",
        abstract: "Edge agent for Linux bike computers: records trips, detects obstacles, syncs drafts.",
        version: "0.1.0",
        subcommands: [
            RunCommand.self, RecordCommand.self,
            ReplayCommand.self, DecodeCommand.self, DetectCommand.self, ImportCommand.self, InspectCommand.self,
            DiagnoseCommand.self,
            DraftsCommand.self, PathCommand.self, ReviewCommand.self, VerifyCommand.self, ExportCommand.self, StatsCommand.self,
            SyncCommand.self,
            ConfigCommand.self, StatusCommand.self, TailCommand.self, MarkCommand.self, EvaluateCommand.self,
            CalibrationCommand.self,
        ]
    )
}
