import Logging
import Synchronization

/// SIGHUP's work for `bikepathd run` (`ConfigurationReloadService` calls it):
/// read the file again with the same checks; on any problem keep the running
/// configuration. Sensor settings apply at once, chain settings when no trip
/// is under way; the rest is logged as needing a restart.
final class ConfigurationReloader: Sendable {
    private let load: @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    private let loop: DaemonLoop
    private let sensors: LiveSources?
    private let logger: Logger
    private let running: Mutex<DaemonConfiguration>

    /// `load` reads the file again with the command line's overrides on top.
    init(load: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration, running: DaemonConfiguration,
         loop: DaemonLoop, sensors: LiveSources?, logger: Logger) {
        self.load = load
        self.running = Mutex(running)
        self.loop = loop
        self.sensors = sensors
        self.logger = logger
    }

    func reload() {
        let fresh: DaemonConfiguration
        do { fresh = try load() } catch {
            logger.error("reload refused, the running configuration stays:\n\(error.description)")
            return
        }
        let current = running.withLock { $0 }
        if fresh == current {
            logger.notice("configuration reloaded: no change")
            return
        }
        loop.reload(fresh.pipelineConfiguration)
        sensors?.reconfigure(gnss: fresh.gpsdConfiguration, imu: fresh.iioConfiguration)
        var needRestart: [String] = []
        if fresh.store != current.store { needRestart.append("store") }
        if fresh.sync != current.sync || fresh.privacy != current.privacy { needRestart.append("sync/privacy") }
        if fresh.log != current.log { needRestart.append("log") }
        if fresh.status != current.status { needRestart.append("status") }
        running.withLock { $0 = fresh }
        let later = needRestart.isEmpty ? "" : "; \(needRestart.joined(separator: ", ")) apply at the next restart"
        logger.notice("configuration reloaded: chain settings apply when no trip is under way, sensors at once\(later)")
    }
}
