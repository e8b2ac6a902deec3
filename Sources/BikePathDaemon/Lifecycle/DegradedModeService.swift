import Logging
import ServiceLifecycle

/// Watches the reasons to run degraded (gpsd, IMU, hub missing): each one is
/// logged, published as a `degraded`/`recovered` event and sent to systemd as
/// STATUS= once when it appears and once when it clears.
public struct DegradedModeService: Service, CustomStringConvertible {
    let reasons: @Sendable () async -> [String]
    let notifier: SystemdNotifier
    let logger: Logger
    let publish: @Sendable (DaemonEvent) -> Void
    let interval: Duration

    /// Creates the watcher: `reasons` is polled every `interval` (1 s), `publish` hears the events.
    public init(
        reasons: @escaping @Sendable () async -> [String], notifier: SystemdNotifier, logger: Logger,
        interval: Duration = .seconds(1), publish: @escaping @Sendable (DaemonEvent) -> Void
    ) {
        self.reasons = reasons
        self.notifier = notifier
        self.logger = logger
        self.interval = interval
        self.publish = publish
    }

    public var description: String { "degraded-mode watcher" }

    /// Watches until graceful shutdown.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.watch() }
    }

    private func watch() async {
        var tracker = DegradedTracker()
        while !Task.isCancelled {
            let now = await reasons()
            let (appeared, cleared) = tracker.update(now)
            for r in appeared {
                logger.warning("running degraded: \(r)")
                publish(DaemonEvent(kind: "degraded", message: r))
            }
            for r in cleared {
                logger.notice("recovered: \(r)")
                publish(DaemonEvent(kind: "recovered", message: r))
            }
            if !appeared.isEmpty || !cleared.isEmpty {
                // systemd not listening (or gone): the log and `tail` still have it.
                try? notifier.status(now.isEmpty ? "running" : "degraded: " + now.joined(separator: "; "))
            }
            try? await Task.sleep(for: interval)  // cancelled: the loop ends at its check
        }
    }
}
