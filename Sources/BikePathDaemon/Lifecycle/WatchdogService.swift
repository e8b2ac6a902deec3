import ServiceLifecycle

/// systemd's watchdog pings (`Watchdog`, on its own thread so that a stuck
/// pipeline cannot keep it pinging) from start until shutdown.
public struct WatchdogService: Service, CustomStringConvertible {
    let watchdog: Watchdog

    public init(watchdog: Watchdog) { self.watchdog = watchdog }

    public var description: String { "watchdog" }

    public func run() async {
        watchdog.start()
        // Throws only when cancelled: the pings stop either way.
        try? await gracefulShutdown()
        watchdog.stop()
    }
}
