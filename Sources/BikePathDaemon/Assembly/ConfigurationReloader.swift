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
        let needRestart = Self.needingRestart(from: current, to: fresh)
        running.withLock { $0 = fresh }
        let later = needRestart.isEmpty ? "" : "; \(needRestart.joined(separator: ", ")) apply at the next restart"
        logger.notice("configuration reloaded: chain settings apply when no trip is under way, sensors at once\(later)")
    }

    /// The changed settings that only a restart applies: those read once at start (the
    /// store and what it is opened with, sync, logging, the sockets, the review page).
    /// `obstacles.review_budget` and `milestones` were applied by nothing and said by
    /// nothing (issue 24).
    static func needingRestart(from current: DaemonConfiguration, to fresh: DaemonConfiguration) -> [String] {
        var keys: [String] = []
        if fresh.store != current.store { keys.append("store") }
        if fresh.obstacles.reviewBudget != current.obstacles.reviewBudget { keys.append("obstacles.review_budget") }
        if fresh.milestones != current.milestones { keys.append("milestones") }
        if fresh.sync != current.sync || fresh.privacy != current.privacy { keys.append("sync/privacy") }
        if fresh.log != current.log { keys.append("log") }
        if fresh.status != current.status { keys.append("status") }
        if fresh.review != current.review { keys.append("review") }
        return keys
    }
}
