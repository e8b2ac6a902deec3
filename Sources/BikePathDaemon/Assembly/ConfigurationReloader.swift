import Logging
import Synchronization

/// SIGHUP's work for `bikepathd run` (`ConfigurationReloadService` calls it):
/// read the file again with the same checks; on any problem keep the running
/// configuration. Sensor settings apply at once, chain settings when no trip
/// is under way, the rest at the next restart; the log names each changed key
/// under when it applies (`ConfigurationKey.reload`).
final class ConfigurationReloader: Sendable {
    private let load: @Sendable () throws(ConfigurationError) -> DaemonConfiguration
    private let loop: DaemonLoop
    private let sensors: LiveSources?
    private let logger: Logger
    private let running: Mutex<DaemonConfiguration>

    /// `load` reads the file again with the command line's overrides on top.
    init(
        load: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration, running: DaemonConfiguration,
        loop: DaemonLoop, sensors: LiveSources?, logger: Logger
    ) {
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
        running.withLock { $0 = fresh }
        logger.notice("configuration reloaded: \(Self.report(ConfigurationKey.changed(from: current, to: fresh)))")
    }

    /// Each changed key under when it takes effect (`ConfigurationKey.reload`), chain
    /// settings first: "chain settings apply when no trip is under way (trip.end_after_s);
    /// sensors at once (gnss.port); at the next restart only (store.path)".
    static func report(_ changed: [ConfigurationKey]) -> String {
        let parts: [(ConfigurationKey.ReloadEffect, String)] = [
            (.chain, "chain settings apply when no trip is under way"), (.sensors, "sensors at once"),
            (.restart, "at the next restart only"),
        ]
        return parts.compactMap { effect, words in
            let keys = changed.filter { $0.reload == effect }.map(\.path)
            return keys.isEmpty ? nil : "\(words) (\(keys.joined(separator: ", ")))"
        }.joined(separator: "; ")
    }
}
