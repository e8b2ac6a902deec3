import BikePathCore
import BikePathReview
import BikePathSensors
import BikePathStore
import BikePathSync
import Foundation
import Logging
import ServiceLifecycle

/// `bikepathd run` as a library: the store, the pipeline, sync, the status
/// socket and systemd's hooks put together as one `ServiceGroup`
/// (docs/daemon.md, "Structure"), in the manner of Hummingbird's `buildApplication`.
/// The executable parses flags, calls `make`, then `run`, and maps the result to
/// an exit code; everything between is here and testable in process.
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let store: Store
    let loop: DaemonLoop
    let input: DaemonInput
    let services: DaemonServices

    /// Opens the store and the status socket and builds the services, in the
    /// order that refuses early: a recording that cannot be read, a store that
    /// cannot be opened, or another daemon on the socket stop it before anything
    /// is written. `reload` reads the configuration again on SIGHUP; `version`
    /// is what `status` reports.
    /// - Throws: `DaemonStartError`.
    public static func make(
        configuration: DaemonConfiguration, input: DaemonInputKind, version: String,
        reload: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration,
        logger: Logger
    ) async throws(DaemonStartError) -> Daemon {
        let ready: DaemonInput
        do { ready = try DaemonInput.make(input, configuration: configuration, logger: logger) } catch {
            throw .unreadableInput(error)
        }
        let store: Store
        do { store = try Store.open(path: configuration.store.path, configuration: configuration.storeConfiguration) } catch {
            throw .unusableStore(path: configuration.store.path, error)
        }
        if let moved = store.openReport.movedAsideTo {
            logger.critical(
                "the store was unusable and was moved aside to \(moved) (kept there); recording into a fresh, empty store: \(store.openReport.movedAsideReason ?? "")"
            )
        }
        do {
            return try await Daemon(
                configuration: configuration, store: store, input: ready, version: version, reload: reload,
                logger: logger)
        } catch let error as DaemonStartError { throw error } catch { throw .storeFailed(error) }
    }

    private init(
        configuration: DaemonConfiguration, store: Store, input: DaemonInput, version: String,
        reload: @escaping @Sendable () throws(ConfigurationError) -> DaemonConfiguration, logger: Logger
    ) async throws {
        self.configuration = configuration
        self.store = store
        self.input = input
        let openTrip = try TripRecovery.decideOpenTrip(
            store: store, endAfterSeconds: configuration.trip.endAfterS,
            live: input.live != nil, logger: logger)
        let board = StatusBoard()
        // Made before the server, whose status closure needs the loop that publishes.
        let statusClients = StatusClients()
        let publish: @Sendable (DaemonEvent) -> Void = { statusClients.publish($0) }
        let (sync, syncProblem) = await DaemonSync.make(configuration, store: store, board: board, logger: logger, publish: publish)
        let heartbeat = Heartbeat()
        loop = try DaemonLoop(
            configuration: configuration, store: store, source: input.source, board: board,
            heartbeat: heartbeat, logger: logger, live: input.live != nil, openTrip: openTrip,
            inputFinished: input.finished, publish: publish, workQueued: { sync?.engine.workAvailable() })
        let startedAt = EdgeClock.monotonic()
        let status: @Sendable () async -> DaemonStatus = {
            [
                live = input.live, storePath = configuration.store.path,
                crash = configuration.crash.enabled
            ] in
            // Crash detection with SOS sharing off is said, never changed (ConsentPolicy).
            let sos = await ConsentPolicy.sosStaysOnDevice(store: store, crashDetection: crash)
            return DaemonStatus.assemble(
                board: board, sensors: live, startedAt: startedAt, storePath: storePath, version: version,
                problems: (syncProblem.map { [$0] } ?? []) + Self.storeProblems(store) + (sos.map { [$0] } ?? []))
        }
        // A confirmation (`drafts confirm` through the socket, the page in-process) wakes sync: the
        // ride leaves within seconds, not after sync.interval_s.
        let engine = sync?.engine
        let syncNow: (@Sendable () -> Void)? = engine.map { engine in { @Sendable in engine.workAvailable() } }
        let syncOff = syncProblem ?? PublishingSetup.Hold.noHub(key: configuration.publishing.keys.hubURL).description
        var server: StatusServer?
        do {
            server = try StatusServer(
                path: configuration.status.socket, clients: statusClients, status: status,
                mark: { [marks = loop.marks] kind, reply in marks.submit(kind, reply: reply) },
                syncNow: {
                    guard let syncNow else { return SyncNowReply(off: syncOff) }
                    syncNow()
                    return SyncNowReply()
                })
        } catch .alreadyRunning(let path) {
            throw DaemonStartError.anotherDaemon(path: path)
        } catch .notASocket(let path) {
            throw DaemonStartError.statusSocketBlocked(path: path)
        } catch {
            logger.error("status socket unavailable, running without it: \(error)")
        }
        let reloader = ConfigurationReloader(
            load: reload, running: configuration, loop: loop, sensors: input.live,
            logger: logger)
        let notifier = SystemdNotifier()
        let inputs =
            input.live != nil
            ? "gpsd \(configuration.gnss.host):\(configuration.gnss.port), IMU \(configuration.imu.uri)" : "replay"
        services = DaemonServices(
            statusServer: server,
            watchdog: Watchdog(notifier: notifier, heartbeat: heartbeat) { stalled in
                logger.error("pipeline stalled (\(stalled) watchdog checks without progress): no ping to systemd")
            },
            sync: sync,
            review: ReviewAddress(configuration.review.listen).map {
                ReviewService(
                    store: store, address: $0, addressSetBy: ConfigurationKey.path(\.review.listen), publishing: configuration.publishing,
                    streetMap: Self.streetMap(configuration.review, logger: logger), syncNow: syncNow, logger: logger)
            },
            loop: loop,
            degradedMode: DegradedModeService(
                reasons: { await status().degraded }, notifier: notifier, logger: logger,
                publish: publish),
            reload: ConfigurationReloadService(notifier: notifier) { reloader.reload() },
            readiness: SystemdReadinessService(
                notifier: notifier, heartbeat: heartbeat, logger: logger,
                runningMessage: "bikepathd running: store \(configuration.store.path), status \(configuration.status.socket), \(inputs)"))
    }

    /// The group `run` runs: SIGTERM and SIGINT shut it down gracefully.
    public func makeServiceGroup(logger: Logger) -> ServiceGroup {
        ServiceGroup(configuration: services.groupConfiguration(logger: logger))
    }

    /// Starts the sources, runs the group until SIGTERM/SIGINT or the end of a
    /// recording, and says what became of the ride's data.
    /// - Throws: `PipelineFailure` when the pipeline failed (the group is shut
    ///   down first), or the source's start error.
    public func run(logger: Logger) async throws -> DaemonRunReport {
        try input.source.start()
        do {
            try await makeServiceGroup(logger: logger).run()
        } catch let failure as PipelineFailure {
            throw failure
        }
        return DaemonRunReport(summary: loop.summary, uncommitted: loop.uncommitted, inputFailure: input.failure())
    }

    /// The store's problems (moved aside, withheld SOS, failed retention, disk full), or why it could not be asked.
    static func storeProblems(_ store: Store) -> [String] {
        do { return try store.diagnostics().problems } catch { return ["store: cannot read its diagnostics: \(error)"] }
    }
}

/// What a finished `run` leaves: its counters, what the disk could not take, and
/// whether the recording (replay) was read to its end.
public struct DaemonRunReport: Sendable {
    public var summary: DaemonLoop.Summary
    /// Outputs the final commit could not store (the disk stayed full).
    public var uncommitted: UncommittedOutputs
    /// Set when a recording could not be read to its end; what was read is committed.
    public var inputFailure: ReplayFailure?

    /// Everything the chain produced is in the store.
    public var everythingCommitted: Bool { uncommitted.isEmpty && summary.droppedTrackPoints == 0 }
}

/// Why `Daemon.make` refused to start.
public enum DaemonStartError: Error, CustomStringConvertible {
    case unreadableInput(any Error)
    case unusableStore(path: String, any Error)
    /// The store opened, but reading it (the open trip, the calibration) failed.
    case storeFailed(any Error)
    case anotherDaemon(path: String)
    case statusSocketBlocked(path: String)

    public var description: String {
        switch self {
        case .unreadableInput(let error): "\(error)"
        case .unusableStore(let path, let error): "cannot open the store \(path): \((error as? StoreError)?.sentence ?? "\(error)")"
        case .storeFailed(let error): "the store: \(error)"
        case .anotherDaemon(let path): "another bikepathd answers on \(path)"
        case .statusSocketBlocked(let path): "\(StatusSocketError.notASocket(path))"
        }
    }
}
