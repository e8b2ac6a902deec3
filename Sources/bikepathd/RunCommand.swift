import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathSensors
import BikePathStore
import BikePathSync
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `bikepathd run`: the daemon. Sources → chain → store → sync, with systemd
/// notification and watchdog, the status socket, SIGHUP reload and a clean
/// SIGTERM (docs/daemon.md). A missing gpsd, IMU or network makes it run
/// degraded and say so; only a bad configuration or an unusable store stop it.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the daemon (under systemd: Type=notify).",
        discussion: "SIGTERM/SIGINT: commit and exit. SIGHUP: reload the configuration file.")

    @OptionGroup var daemon: DaemonOptions

    @Option(help: ArgumentHelp("Feed this recording instead of the live sensors, as fast as possible, then exit.", valueName: "file"))
    var replay: String?

    @Option(help: ArgumentHelp("Synthetic ride of this many hours instead of the live sensors (soak benchmark).", visibility: .hidden))
    var syntheticHours: Double?

    @Flag(help: "With --replay or --synthetic-hours: print a JSON summary (records, outputs, RSS) on stdout at the end.")
    var summary = false

    enum Event: Sendable { case signal(Int32), loopEnded(String?) }

    func run() async throws {
        let signals = SignalEvents.stream([SIGTERM, SIGINT, SIGHUP])
        var configuration: DaemonConfiguration
        do { configuration = try daemon.effectiveConfiguration() } catch { throw failWithConfigurationProblems(error) }
        DaemonLogging.bootstrap(level: configuration.log.level)
        let logger = Logger(label: "bikepathd")
        let notifier = SystemdNotifier()
        let startedAt = EdgeClock.monotonic()

        let store: Store
        do {
            store = try Store.open(path: configuration.store.path, configuration: configuration.storeConfiguration)
        } catch {
            logger.critical("cannot open the store \(configuration.store.path): \(error)")
            throw ExitCode(1)
        }
        if let moved = store.openReport.movedAsideTo {
            logger.error("the store was unreadable and was moved aside to \(moved): \(store.openReport.movedAsideReason ?? "")")
        }

        // Sources: live sensors, a recording, or a synthetic ride.
        let live = replay == nil && syntheticHours == nil
        let source: any SensorSource
        var liveSources: LiveSources?
        let replayFinished: @Sendable () -> Bool
        if let replay {
            let r = try ReplaySource(path: replay, repeats: 1)
            source = r
            replayFinished = { r.finished }
        } else if let syntheticHours {
            let s = SyntheticRideSource(hours: syntheticHours)
            source = s
            replayFinished = { s.finished }
        } else {
            let l = LiveSources(gnss: configuration.gpsdConfiguration, imu: configuration.iioConfiguration, logger: logger)
            liveSources = l
            source = l
            replayFinished = { false }
        }

        let openTrip = try decideOpenTrip(store: store, configuration: configuration, live: live, logger: logger)

        // Status socket: events go to `bikepathd tail`.
        let board = StatusBoard()
        let server = ServerBox()
        let publish: @Sendable (DaemonEvent) -> Void = { server.value?.publish($0) }

        // Sync, if a hub is configured; a problem with it is a degraded mode, not an exit.
        var syncRunner: SyncRunner?
        var syncProblem: String?
        if !configuration.sync.hubURL.isEmpty {
            do {
                try SyncRunner.applyFilePolicy(configuration, store: store, logger: logger)
                let token = try DeviceToken.read(path: configuration.sync.tokenFile)
                let client = try HubClient(endpoint: HubEndpoint(
                    baseURL: configuration.sync.hubURL, token: token,
                    caFile: configuration.sync.caFile.isEmpty ? nil : configuration.sync.caFile))
                syncRunner = SyncRunner(engine: SyncEngine(store: store, client: client), client: client, board: board,
                                        interval: configuration.sync.intervalS, logger: logger, publish: publish)
            } catch {
                syncProblem = "sync off: \(error)"
                logger.error("\(syncProblem!)")
            }
        }
        let runner = syncRunner
        let heartbeat = Heartbeat()
        let loop = try DaemonLoop(configuration: configuration, store: store, source: source, board: board,
                                  heartbeat: heartbeat, logger: logger, live: live, openTrip: openTrip,
                                  publish: publish, workQueued: { runner?.workQueued() })

        let statusPath = configuration.status.socket
        let sensors = liveSources
        let storePath = configuration.store.path
        let problem = syncProblem
        let status: @Sendable () -> DaemonStatus = {
            Self.status(board: board, sensors: sensors, startedAt: startedAt, storePath: storePath, syncProblem: problem)
        }
        do {
            server.value = try StatusServer(path: statusPath, status: status)
        } catch .alreadyRunning(let path) {
            logger.critical("another bikepathd answers on \(path)")
            throw ExitCode(1)
        } catch {
            logger.error("status socket unavailable, running without it: \(error)")
        }

        try source.start()
        let (events, continuation) = AsyncStream.makeStream(of: Event.self)
        let thread = Thread {
            do {
                try loop.run(replayFinished: replayFinished)
                continuation.yield(.loopEnded(nil))
            } catch {
                continuation.yield(.loopEnded("\(error)"))
            }
        }
        thread.name = "pipeline"
        thread.start()
        let signalTask = Task { for await s in signals { continuation.yield(.signal(s)) } }
        let syncTask = runner.map { r in Task { await r.run() } }
        let watchdog = Watchdog(notifier: notifier, heartbeat: heartbeat) { stalled in
            logger.error("pipeline stalled (\(stalled) watchdog checks without progress): no ping to systemd")
        }
        watchdog?.start()
        let degradedTask = Task { await Self.watchDegraded(status: status, notifier: notifier, logger: logger, publish: publish) }
        try? notifier.ready(status: "running")
        let inputs = live ? "gpsd \(configuration.gnss.host):\(configuration.gnss.port), IMU \(configuration.imu.uri)" : "replay"
        logger.notice("bikepathd running: store \(configuration.store.path), status \(statusPath), \(inputs)")

        var failure: String?
        for await event in events {
            if case .signal(SIGHUP) = event {
                configuration = reload(configuration, loop: loop, sensors: liveSources, notifier: notifier, logger: logger)
                continue
            }
            if case .signal(let s) = event {
                logger.notice("signal \(s): committing and stopping")
                try? notifier.stopping()
                loop.requestStop()
                continue
            }
            if case .loopEnded(let error) = event {
                failure = error
                break
            }
        }
        signalTask.cancel()
        degradedTask.cancel()
        watchdog?.stop()
        syncTask?.cancel()
        server.value?.stop()
        if let runner { await runner.client.shutdown() }
        if let failure {
            logger.critical("pipeline failed: \(failure)")
            throw ExitCode(1)
        }
        if summary { print(jsonText(loop.summary)) }
        logger.notice("stopped; everything committed")
        // Reader threads may sit in a blocking call (libiio, libgps): the work is done, do not wait for them.
        Glibc.exit(0)
    }

    /// A trip left open by the previous run: closed now when its last point is
    /// older than `trip.end_after_s` (the ride is over), otherwise left to the
    /// loop to continue or close (`TripRecovery`).
    func decideOpenTrip(store: Store, configuration: DaemonConfiguration, live: Bool, logger: Logger) throws -> String? {
        guard let open = try store.openTripInfo() else { return nil }
        if live, let last = open.lastPointUTCNanoseconds {
            let age = Double(EdgeClock.realtimeNanoseconds() - last) / 1e9
            if age > configuration.trip.endAfterS {
                _ = try store.closeOpenTrip()
                logger.notice("trip \(open.id) was left open \(Int(age)) s ago: closed at its last point")
                return nil
            }
        }
        logger.notice("trip \(open.id) was left open: it continues if the ride goes on")
        return open.id
    }

    /// SIGHUP: read the file again; on any problem keep the running configuration.
    func reload(_ current: DaemonConfiguration, loop: DaemonLoop, sensors: LiveSources?, notifier: SystemdNotifier,
                logger: Logger) -> DaemonConfiguration {
        try? notifier.reloading()
        defer { try? notifier.ready(status: "running") }
        let fresh: DaemonConfiguration
        do { fresh = try daemon.effectiveConfiguration() } catch {
            logger.error("reload refused, the running configuration stays:\n\(error.description)")
            return current
        }
        if fresh == current {
            logger.notice("configuration reloaded: no change")
            return current
        }
        loop.reload(fresh.pipelineConfiguration)
        sensors?.reconfigure(gnss: fresh.gpsdConfiguration, imu: fresh.iioConfiguration)
        var needRestart: [String] = []
        if fresh.store != current.store { needRestart.append("store") }
        if fresh.sync != current.sync || fresh.privacy != current.privacy { needRestart.append("sync/privacy") }
        if fresh.log != current.log { needRestart.append("log") }
        if fresh.status != current.status { needRestart.append("status") }
        let later = needRestart.isEmpty ? "" : "; \(needRestart.joined(separator: ", ")) apply at the next restart"
        logger.notice("configuration reloaded: chain settings apply when no trip is under way, sensors at once\(later)")
        return fresh
    }

    static func status(board: StatusBoard, sensors: LiveSources?, startedAt: SampleTime, storePath: String,
                       syncProblem: String?) -> DaemonStatus {
        let p = board.pipeline
        let s = board.sync
        let now = EdgeClock.monotonic()
        var degraded = sensors?.degradedReasons ?? []
        if let syncProblem { degraded.append(syncProblem) }
        if s.succeeded == false, let result = s.lastResult { degraded.append("network: sync \(result)") }
        let gnss: DaemonStatus.GNSS
        let imu: DaemonStatus.IMU
        if let sensors {
            let g = sensors.gnss.status
            gnss = DaemonStatus.GNSS(connected: g.connected, lastFixLat: g.lastFix?.latitude ?? p.lastFixLat,
                                     lastFixLon: g.lastFix?.longitude ?? p.lastFixLon, lastFixAgeS: g.fixAge(now: now) ?? p.lastFixAt.map { now.seconds - $0 },
                                     mode: "\(g.fixMode)")
            let i = sensors.imu.status
            imu = DaemonStatus.IMU(connected: i.connected, rateHz: i.measuredRate)
        } else {
            gnss = DaemonStatus.GNSS(connected: false, lastFixLat: p.lastFixLat, lastFixLon: p.lastFixLon, mode: "replay")
            imu = DaemonStatus.IMU(connected: false)
        }
        let directory = (storePath as NSString).deletingLastPathComponent
        return DaemonStatus(
            version: BikePathCommand.configuration.version, pid: getpid(), uptimeS: now - startedAt, degraded: degraded,
            trip: .init(state: p.tripState, id: p.tripID, distanceM: p.tripDistanceM, durationS: p.tripDurationS),
            gnss: gnss, imu: imu,
            store: .init(path: storePath, queueLength: p.queueLength, freeBytes: freeBytes(at: directory)),
            sync: .init(enabled: s.enabled, lastAttemptAt: s.lastAttemptAt, lastResult: s.lastResult, succeeded: s.succeeded))
    }

    /// Logs (and publishes, and tells systemd) each reason to run degraded when
    /// it appears and when it clears.
    static func watchDegraded(status: @Sendable () -> DaemonStatus, notifier: SystemdNotifier, logger: Logger,
                              publish: @Sendable (DaemonEvent) -> Void) async {
        var tracker = DegradedTracker()
        while !Task.isCancelled {
            let reasons = status().degraded
            let (appeared, cleared) = tracker.update(reasons)
            for r in appeared {
                logger.warning("running degraded: \(r)")
                publish(DaemonEvent(kind: "degraded", message: r))
            }
            for r in cleared {
                logger.notice("recovered: \(r)")
                publish(DaemonEvent(kind: "recovered", message: r))
            }
            if !appeared.isEmpty || !cleared.isEmpty {
                try? notifier.status(reasons.isEmpty ? "running" : "degraded: " + reasons.joined(separator: "; "))
            }
            try? await Task.sleep(nanoseconds: 1_000_000_000)
        }
    }
}

/// The status server, made after the closures that publish to it.
final class ServerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var server: StatusServer?
    var value: StatusServer? {
        get { lock.lock(); defer { lock.unlock() }; return server }
        set { lock.lock(); server = newValue; lock.unlock() }
    }
}
