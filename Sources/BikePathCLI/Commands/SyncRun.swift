import BikePathDaemon
import BikePathSync
import Logging

extension StandaloneSync {
    /// `bikepathd sync run`: one pass (`once`) or passes until SIGTERM/SIGINT, each reported on
    /// stderr (quiet when there was nothing to do); returns the exit status (docs/cli.md).
    public func run(once: Bool) async throws -> Int32 {
        if once {
            let (result, wire, seconds) = await self.once()
            standardErrorLine(SyncText.pass(result))
            standardErrorLine(SyncText.wire(wire, seconds: seconds))
            return result.exitStatus
        }
        let stopped = try await untilStopped(logger: Logger(label: "bikepath.sync")) { result, wait in
            if case .drained(0, 0) = result { return }
            standardErrorLine(SyncText.pass(result, next: wait))
        }
        return stopped?.exitStatus ?? 0
    }
}
