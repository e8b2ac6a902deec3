import ServiceLifecycle

/// systemd's watchdog pings (`Watchdog`, on its own thread so that a stuck
/// pipeline cannot keep it pinging) from start until shutdown.
public struct WatchdogService: Service, CustomStringConvertible {
    let watchdog: Watchdog

    /// Creates the service running `watchdog`.
    public init(watchdog: Watchdog) { self.watchdog = watchdog }

    public var description: String { "watchdog" }

    /// Starts the watchdog's thread and stops it at graceful shutdown (or cancellation).
    public func run() async {
        watchdog.start()
        // Throws only when cancelled: the pings stop either way.
        try? await gracefulShutdown()
        watchdog.stop()
    }
}
