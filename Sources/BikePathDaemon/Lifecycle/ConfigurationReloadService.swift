import ServiceLifecycle
import UnixSignals

/// SIGHUP reloads the configuration. It is not a shutdown signal, so this
/// service traps it itself rather than the group. systemd hears RELOADING=1
/// before the reload and READY=1 once it is done (applied or refused).
public struct ConfigurationReloadService: Service, CustomStringConvertible {
    let notifier: SystemdNotifier
    let reload: @Sendable () -> Void

    /// `reload` re-reads the file and applies it, or logs why not.
    public init(notifier: SystemdNotifier, reload: @escaping @Sendable () -> Void) {
        self.notifier = notifier
        self.reload = reload
    }

    public var description: String { "configuration reload (SIGHUP)" }

    /// Reloads on every SIGHUP until graceful shutdown.
    public func run() async {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in hangups {
                // sd_notify failures: no systemd listening; the reload itself is logged.
                try? notifier.reloading()
                reload()
                try? notifier.ready(status: "running")
            }
        }
    }
}
