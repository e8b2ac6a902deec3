import ServiceLifecycle

/// systemd's watchdog pings (`Watchdog.run`) from start until graceful shutdown.
public struct WatchdogService: Service, CustomStringConvertible {
    let watchdog: Watchdog

    /// Creates the service running `watchdog`.
    public init(watchdog: Watchdog) { self.watchdog = watchdog }

    public var description: String { "watchdog" }

    /// Checks until graceful shutdown (or cancellation); returns after the last check.
    public func run() async {
        await cancelWhenGracefulShutdown { await watchdog.run() }
    }
}
