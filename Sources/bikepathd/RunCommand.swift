import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathSensors
import BikePathStore
import BikePathSync
import Foundation
import Logging
import ServiceLifecycle
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

    @Option(help: ArgumentHelp("With --replay: play at this many times real time instead of as fast as possible.",
                               valueName: "factor"))
    var replaySpeed: Double?

    @Option(help: ArgumentHelp("Synthetic ride of this many hours instead of the live sensors (soak benchmark).", visibility: .hidden))
    var syntheticHours: Double?

    @Flag(help: "With --replay or --synthetic-hours: print a JSON summary (records, outputs, RSS) on stdout at the end.")
    var summary = false

    func validate() throws {
        if let replaySpeed {
            guard replay != nil else { throw ValidationError("--replay-speed needs --replay") }
            guard replaySpeed > 0, replaySpeed.isFinite else { throw ValidationError("--replay-speed must be a positive number") }
        }
    }

    func run() async throws {
        // SIGHUP's default action ends the process. The reload service traps it
        // while it runs; before (startup) and after (shutdown) it is ignored.
        signal(SIGHUP, SIG_IGN)
        let configuration: DaemonConfiguration
        do { configuration = try daemon.effectiveConfiguration() } catch { throw failWithConfigurationProblems(error) }
        DaemonLogging.bootstrap(level: configuration.log.level)
        let logger = Logger(label: "bikepathd")
        let notifier = SystemdNotifier()
        let startedAt = EdgeClock.monotonic()

        // The input first: a recording that cannot be read is refused before anything is written.
        let live = replay == nil && syntheticHours == nil
        let input: Input
        do { input = try makeInput(configuration, logger: logger) } catch {
            logger.critical("\(error)")
            throw ExitCode(1)
        }
        let (source, liveSources, inputFinished) = (input.source, input.live, input.finished)

        let store: Store
        do {
            store = try Store.open(path: configuration.store.path, configuration: configuration.storeConfiguration)
        } catch {
            logger.critical("cannot open the store \(configuration.store.path): \(error)")
            throw ExitCode(1)
        }
        if let moved = store.openReport.movedAsideTo {
            logger.critical("the store was unusable and was moved aside to \(moved) (kept there); recording into a fresh, empty store: \(store.openReport.movedAsideReason ?? "")")
        }

        let openTrip = try decideOpenTrip(store: store, configuration: configuration, live: live, logger: logger)

        // Status socket: events go to `bikepathd tail`.
        let board = StatusBoard()
        let server = ServerBox()
        let publish: @Sendable (DaemonEvent) -> Void = { server.value?.publish($0) }

        let (runner, syncProblem) = Self.makeSyncRunner(configuration, store: store, board: board, logger: logger,
                                                        publish: publish)
        let heartbeat = Heartbeat()
        let loop = try DaemonLoop(configuration: configuration, store: store, source: source, board: board,
                                  heartbeat: heartbeat, logger: logger, live: live, openTrip: openTrip,
                                  inputFinished: inputFinished, publish: publish, workQueued: { runner?.workQueued() })

        let statusPath = configuration.status.socket
        let storePath = configuration.store.path
        let status: @Sendable () -> DaemonStatus = {
            Self.status(board: board, sensors: liveSources, startedAt: startedAt, storePath: storePath,
                        problems: (syncProblem.map { [$0] } ?? []) + Self.storeProblems(store))
        }
        do {
            server.value = try StatusServer(path: statusPath, status: status, mark: { [marks = loop.marks] kind, reply in
                marks.submit(kind, reply: reply)
            })
        } catch .alreadyRunning(let path) {
            logger.critical("another bikepathd answers on \(path)")
            throw ExitCode(1)
        } catch .notASocket(let path) {
            logger.critical("\(StatusSocketError.notASocket(path))")
            throw ExitCode(1)
        } catch {
            logger.error("status socket unavailable, running without it: \(error)")
        }

        try source.start()
        let reloader = ConfigurationReloader(options: daemon, running: configuration, loop: loop, sensors: liveSources,
                                             logger: logger)
        let inputs = live ? "gpsd \(configuration.gnss.host):\(configuration.gnss.port), IMU \(configuration.imu.uri)" : "replay"
        let services = DaemonServices(
            statusServer: server.value,
            watchdog: Watchdog(notifier: notifier, heartbeat: heartbeat) { stalled in
                logger.error("pipeline stalled (\(stalled) watchdog checks without progress): no ping to systemd")
            },
            sync: runner,
            review: ReviewAddress(configuration.review.listen).map { ReviewService(store: store, address: $0, logger: logger) },
            loop: loop,
            degradedMode: DegradedModeService(reasons: { status().degraded }, notifier: notifier, logger: logger,
                                              publish: publish),
            reload: ConfigurationReloadService(notifier: notifier) { reloader.reload() },
            readiness: SystemdReadinessService(
                notifier: notifier, heartbeat: heartbeat, logger: logger,
                runningMessage: "bikepathd running: store \(configuration.store.path), status \(statusPath), \(inputs)"))
        do {
            try await ServiceGroup(configuration: services.groupConfiguration(logger: logger)).run()
        } catch let failure as PipelineFailure {
            logger.critical("pipeline failed: \(failure)")
            throw ExitCode(1)
        } catch {
            logger.critical("stopped on an error: \(error)")
            throw ExitCode(1)
        }
        if let failure = input.failure() {
            logger.critical("the recording could not be read to its end; what was read is committed: \(failure)")
            throw ExitCode(1)
        }
        if summary { print(jsonText(loop.summary)) }
        let dropped = loop.summary.droppedTrackPoints
        if !loop.uncommitted.isEmpty || dropped > 0 {
            logger.critical("""
                stopped; NOT everything committed: the disk was full; lost: \(loop.uncommitted), and \(dropped) track \
                points dropped while it was full — free space on the store's disk (`bikepathd diagnose` keeps the counts)
                """)
            throw ExitCode(Self.exitLostData)
        }
        logger.notice("stopped; everything committed")
        // Reader threads may sit in a blocking call (libiio, libgps): the work is done, do not wait for them.
        Glibc.exit(0)
    }

    /// Exit status when outputs could not be committed (EX_IOERR).
    static let exitLostData: Int32 = 74

    /// Where records come from, how to tell that a recording is used up, and why it
    /// stopped early if it did.
    struct Input {
        var source: any SensorSource
        var live: LiveSources?
        var finished: @Sendable () -> Bool
        var failure: @Sendable () -> String?
    }

    /// Live sensors, a recording, or a synthetic ride.
    func makeInput(_ configuration: DaemonConfiguration, logger: Logger) throws -> Input {
        if let replay {
            let r = try ReplaySource(path: replay, repeats: 1, speed: replaySpeed)
            return Input(source: r, finished: { r.finished }, failure: { r.failure })
        }
        if let syntheticHours {
            let s = SyntheticRideSource(hours: syntheticHours)
            return Input(source: s, finished: { s.finished }, failure: { nil })
        }
        let l = LiveSources(gnss: configuration.gpsdConfiguration, imu: configuration.iioConfiguration, logger: logger)
        return Input(source: l, live: l, finished: { false }, failure: { nil })
    }

    /// Sync, if a hub is configured. A problem with it is a degraded mode (the
    /// returned reason), not an exit.
    static func makeSyncRunner(_ configuration: DaemonConfiguration, store: Store, board: StatusBoard, logger: Logger,
                               publish: @escaping @Sendable (DaemonEvent) -> Void) -> (SyncRunner?, String?) {
        guard !configuration.sync.hubURL.isEmpty else { return (nil, nil) }
        do {
            try SyncRunner.applyFilePolicy(configuration, store: store, logger: logger)
            let token = try DeviceToken.read(path: configuration.sync.tokenFile)
            let client = try HubClient(endpoint: HubEndpoint(
                baseURL: configuration.sync.hubURL, token: token,
                caFile: configuration.sync.caFile.isEmpty ? nil : configuration.sync.caFile))
            return (SyncRunner(engine: SyncEngine(store: store, client: client), client: client, board: board,
                               interval: configuration.sync.intervalS, logger: logger, publish: publish), nil)
        } catch {
            let problem = "sync off: \(error)"
            logger.error("\(problem)")
            return (nil, problem)
        }
    }

    /// A trip left open by the previous run: closed now when its last point is
    /// older than `trip.end_after_s` (the ride is over), otherwise left to the
    /// loop to continue or close (`TripRecovery`).
    func decideOpenTrip(store: Store, configuration: DaemonConfiguration, live: Bool, logger: Logger) throws -> String? {
        guard let open = try store.openTripInfo() else { return nil }
        guard live else {
            // A replay plays the trip's start again (after a kill, or a second run): its
            // id is derived from that start (docs/storage.md), so the same trip goes on.
            logger.notice("trip \(open.id) was left open: replaying its start again continues it")
            return nil
        }
        if let last = open.lastPointUTCNanoseconds {
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

    /// The store's problems (moved aside, withheld SOS, failed retention, disk full), or why it could not be asked.
    static func storeProblems(_ store: Store) -> [String] {
        do { return try store.diagnostics().problems } catch { return ["store: cannot read its diagnostics: \(error)"] }
    }

    static func status(board: StatusBoard, sensors: LiveSources?, startedAt: SampleTime, storePath: String,
                       problems: [String]) -> DaemonStatus {
        let p = board.pipeline
        let s = board.sync
        let now = EdgeClock.monotonic()
        var degraded = sensors?.degradedReasons ?? []
        degraded += problems
        if let storeProblem = p.storeProblem { degraded.append(storeProblem) }
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
