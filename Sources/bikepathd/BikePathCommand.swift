import ArgumentParser
import BikePathCLI

#if canImport(Glibc)
    import Glibc
#endif

/// The entry point: a synchronous main that runs the command as a task. An async main
/// parks the main thread with `dispatch_main`, whose `pthread_exit` unwinds that thread's
/// stack through the unwind tables and leaves 0.8 MB of them resident (`.eh_frame_hdr` and
/// `.eh_frame`, measured under gdb: docs/performance.md, "Memory of the daemon"). Nothing
/// of the daemon runs on the main actor, so the main thread only waits where
/// `dispatch_main` leaves it: in `sigsuspend` with no signal blocked. The task exits with
/// status 0 as an async main does when it returns; a failed command exits from
/// ArgumentParser with its own status.
@main
enum BikePathMain {
    static func main() {
        Task.detached {
            await BikePathCommand.main()
            exit(0)
        }
        var none = sigset_t()
        sigemptyset(&none)
        while true { sigsuspend(&none) }
    }
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
            DraftsCommand.self, ReviewCommand.self, VerifyCommand.self, ExportCommand.self, StatsCommand.self,
            SyncCommand.self,
            ConfigCommand.self, StatusCommand.self, TailCommand.self, MarkCommand.self, EvaluateCommand.self,
            CalibrationCommand.self,
        ]
    )
}
