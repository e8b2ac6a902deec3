import BikePathDaemon
import Logging

/// `bikepathd run` once its flags are read: the daemon made, run to its end, and that end reported.
public enum DaemonMain {
    /// Runs the daemon; returns its exit status (0: a clean stop, 1: it could not start or the
    /// pipeline failed). With `summary`, a replay's JSON summary goes to stdout at the end.
    public static func run(
        configuration: DaemonConfiguration, input: DaemonInputKind, version: String,
        reload: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration, summary: Bool
    ) async -> Int32 {
        DaemonLogging.bootstrap(level: configuration.log.level)
        let logger = Logger(label: "bikepathd")
        let daemon: Daemon
        do {
            daemon = try await Daemon.make(configuration: configuration, input: input, version: version, reload: reload, logger: logger)
        } catch {
            logger.critical("\(error)")
            return 1
        }
        let report: DaemonRunReport
        do { report = try await daemon.run(logger: logger) } catch let failure as PipelineFailure {
            logger.critical("pipeline failed: \(failure)")
            return 1
        } catch {
            logger.critical("stopped on an error: \(error)")
            return 1
        }
        if summary, report.inputFailure == nil { print(jsonText(RunSummaryJSON(report.summary))) }
        guard report.exitStatus == 0 else {
            logger.critical("\(report.closingLine)")
            return report.exitStatus
        }
        logger.notice("\(report.closingLine)")
        return 0
    }
}
