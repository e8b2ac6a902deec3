import Logging
import ServiceLifecycle

/// Tells systemd READY=1 once the pipeline has made its first pass (the store
/// is open, the status socket bound and the sources started before the group
/// runs), and STOPPING=1 as soon as the group starts shutting down: it is the
/// last service in the group, so the first to hear of the shutdown.
public struct SystemdReadinessService: Service, CustomStringConvertible {
    let notifier: SystemdNotifier
    let heartbeat: Heartbeat
    let logger: Logger
    let runningMessage: String

    /// `runningMessage` is logged at READY=1.
    public init(notifier: SystemdNotifier, heartbeat: Heartbeat, logger: Logger, runningMessage: String) {
        self.notifier = notifier
        self.heartbeat = heartbeat
        self.logger = logger
        self.runningMessage = runningMessage
    }

    public var description: String { "systemd readiness" }

    /// Sends READY=1 after the first heartbeat, then STOPPING=1 when the shutdown begins.
    public func run() async {
        while heartbeat.count == 0, !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(10))  // cancelled: the loop condition ends it
        }
        if heartbeat.count > 0 {
            // No systemd listening (run by hand): nothing to tell.
            try? notifier.ready(status: "running")
            logger.notice("\(runningMessage)")
        }
        // Throws only when cancelled (a failing service): say we stop either way.
        try? await gracefulShutdown()
        logger.notice("shutting down: committing everything")
        try? notifier.stopping()  // as READY=1: no listener, nothing to tell
    }
}
