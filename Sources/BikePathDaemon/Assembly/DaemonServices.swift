import BikePathReview
import BikePathSync
import Logging
import ServiceLifecycle

/// The parts of `bikepathd run` as one ServiceGroup (docs/daemon.md, "Structure").
///
/// Services start in this order and shut down gracefully in the reverse one:
/// readiness (STOPPING=1 first), the SIGHUP reload, the degraded-mode watcher,
/// then the pipeline (stops its sources and commits everything), then sync,
/// the watchdog, and last the status socket. So `status` answers and the
/// watchdog pings while the pipeline commits, and nothing is cancelled under it.
struct DaemonServices {
    var statusServer: StatusServer?
    var watchdog: Watchdog?
    var sync: SyncService?
    /// The rider's review page, when `review.listen` is set.
    var review: ReviewService?
    let loop: DaemonLoop
    let degradedMode: DegradedModeService
    let reload: ConfigurationReloadService
    let readiness: SystemdReadinessService

    func groupConfiguration(logger: Logger) -> ServiceGroupConfiguration {
        typealias Configured = ServiceGroupConfiguration.ServiceConfiguration
        // A helper ending early (the hub refused the token, the signal stream
        // ended, …) leaves the daemon running without it.
        func helper(_ service: any Service) -> Configured {
            Configured(service: service, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore)
        }
        var services: [Configured] = []
        if let statusServer { services.append(helper(StatusServerService(server: statusServer))) }
        if let watchdog { services.append(helper(WatchdogService(watchdog: watchdog))) }
        if let sync { services.append(helper(sync)) }
        if let review { services.append(helper(review)) }
        // The pipeline ending (stopped, or the recording used up) or failing ends
        // the daemon, gracefully either way: the rest still shuts down in order;
        // a failure is rethrown by the group once that is done (exit 1).
        services.append(
            Configured(
                service: PipelineService(loop: loop),
                successTerminationBehavior: .gracefullyShutdownGroup,
                failureTerminationBehavior: .gracefullyShutdownGroup))
        services.append(helper(degradedMode))
        services.append(helper(reload))
        services.append(helper(readiness))
        return ServiceGroupConfiguration(services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    }
}
