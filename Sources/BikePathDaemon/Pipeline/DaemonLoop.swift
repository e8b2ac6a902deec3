import BikePathCore
import BikePathSensors
import BikePathStore
import Foundation
import Logging
import Synchronization

/// The pipeline thread of `bikepathd run`: source → chain → store, one pass per
/// batch (or per second without data), beating the watchdog's heartbeat each
/// pass. It owns the chain and the store writer; nothing else touches them.
///
/// Unchecked Sendable: that state is confined to the pipeline thread (`summary` and
/// `uncommitted` are read after `run` returns); other threads touch only the stop flag
/// (an Atomic), the pending configuration (a Mutex), `marks` and the `StatusBoard`.
public final class DaemonLoop: PipelineLoop, @unchecked Sendable {
    /// Counters of one run: `run --replay --summary` prints them (as `RunSummaryJSON`), the soak benchmark too.
    public struct Summary: Sendable {
        public var records = 0
        public var outputs = 0
        public var tripsEnded = 0
        public var obstacles = 0
        /// Track points handed to the store after thinning, all committed at the end.
        public var trackPoints = 0
        /// Track points dropped because the disk was full.
        public var droppedTrackPoints = 0
        public var seconds = 0.0
        public var rssStartKB = 0
        public var rssAfterFirstHourKB: Int?
        /// RSS at each full hour of sample time (replay and soak: is there a trend?).
        public var rssByHourKB: [Int] = []
        public var rssEndKB = 0
        public var maxRSSKB = 0
    }

    private let store: Store
    private let source: any SensorSource
    private let board: StatusBoard
    private let heartbeat: Heartbeat
    private let logger: Logger
    private let publish: @Sendable (DaemonEvent) -> Void
    private let workQueued: @Sendable () -> Void
    /// True once a recording is used up (replay, synthetic ride); live: never.
    private let inputFinished: @Sendable () -> Bool
    /// Live: the monotonic clock is the sample clock, so a quiet pass still ticks
    /// the writer. Replay: the recording's own times only.
    private let live: Bool
    private let stopFlag = Atomic<Bool>(false)
    private let pendingConfiguration = Mutex<PipelineConfiguration?>(nil)

    private var pipeline: Pipeline
    private var writer: StoreWriter
    private let writerPolicy: WriterPolicy
    private var recovery: TripRecovery
    private var lastSampleTime: SampleTime?
    private var lastFix: GNSSFix?
    private var nextStoreQuery = 0.0
    public private(set) var summary = Summary()
    /// `bikepathd mark`: requests from the status socket, and marks waiting for their fix.
    let marks = RiderMarks()
    private var placedMarks: [RiderMarks.Placed] = []
    private var labelClock = LabelClock()
    /// What the final commit could not store (the disk stayed full); empty when everything is committed.
    public private(set) var uncommitted = UncommittedOutputs()

    init(
        configuration: DaemonConfiguration, store: Store, source: any SensorSource, board: StatusBoard,
        heartbeat: Heartbeat, logger: Logger, live: Bool, openTrip: String?,
        inputFinished: @escaping @Sendable () -> Bool = { false },
        publish: @escaping @Sendable (DaemonEvent) -> Void, workQueued: @escaping @Sendable () -> Void
    ) throws {
        self.store = store
        self.source = source
        self.board = board
        self.heartbeat = heartbeat
        self.logger = logger
        self.live = live
        self.publish = publish
        self.workQueued = workQueued
        self.inputFinished = inputFinished
        var chain = configuration.pipelineConfiguration
        chain.sensitivity = try store.detectorSensitivity()
        pipeline = Pipeline(configuration: chain)
        writerPolicy = configuration.writerPolicy
        writer = try StoreWriter(store: store, policy: writerPolicy)
        recovery = TripRecovery(
            openTrip: openTrip,
            window: configuration.trip.startAfterS + configuration.trip.endAfterS)
    }

    /// Asks `run` to stop; safe from any thread (`run` then commits what it holds and returns).
    public func requestStop() { stopFlag.store(true, ordering: .releasing) }

    /// SIGHUP: the chain's settings change when no trip is under way (a new
    /// chain would lose the trip's state); until then they wait.
    func reload(_ configuration: PipelineConfiguration) { pendingConfiguration.withLock { $0 = configuration } }

    /// Runs until `requestStop` (or the end of a replay). Then stops the source,
    /// processes what it still held, and commits everything.
    public func run() throws {
        let started = DispatchTime.now().uptimeNanoseconds
        summary.rssStartKB = ResourceUsage.currentRSSKilobytes()
        var firstSampleTime: SampleTime?
        try PipelineDriver(source: source).drive(
            shouldStop: { stopFlag.load(ordering: .acquiring) }, inputFinished: inputFinished
        ) { records in
            if let first = records.first, firstSampleTime == nil { firstSampleTime = first.time }
            try pass(records)
            if let f = firstSampleTime, let l = lastSampleTime, l - f >= Double(summary.rssByHourKB.count + 1) * 3600 {
                summary.rssByHourKB.append(ResourceUsage.currentRSSKilobytes())
                if summary.rssAfterFirstHourKB == nil { summary.rssAfterFirstHourKB = summary.rssByHourKB[0] }
            }
            heartbeat.beat()
        }
        // The decoder's last epoch and pending obstacles. Live, a trip under way
        // stays open (a restart continues it): the chain's forced trip end is dropped.
        // A replay that reached its end has no ride to go on: its trip ends.
        let endOfInput = inputFinished()
        let last = pipeline.finish().filter { if case .tripEnded = $0 { endOfInput } else { true } }
        try handle(last)
        for mark in placedMarks { mark.reply(.failure("the daemon stopped before the mark was stored")) }
        placedMarks.removeAll()
        for request in marks.take() { request.reply(.failure("the daemon is stopping")) }
        try writer.flush()
        uncommitted = writer.uncommitted
        do { try store.checkpoint() } catch {
            // Everything is committed; the WAL is folded in at the next open instead.
            logger.warning("WAL checkpoint at stop failed (nothing lost): \(error)")
        }
        summary.seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        summary.trackPoints += writer.trackPointsKept - writer.diskFull.droppedTrackPoints
        summary.droppedTrackPoints += writer.diskFull.droppedTrackPoints
        summary.rssEndKB = ResourceUsage.currentRSSKilobytes()
        summary.maxRSSKB = ResourceUsage.maxRSSKilobytes()
        refreshStatus(force: true)
    }

    private func pass(_ records: [SensorRecord]) throws {
        if let last = records.last { lastSampleTime = last.time }
        summary.records += records.count
        let outputs = pipeline.process(records)
        try handle(outputs)
        try placeMarks()
        let now = live ? EdgeClock.monotonic() : (lastSampleTime ?? SampleTime(nanoseconds: 0))
        try writer.tick(at: now)
        if recovery.expired(now: now) != nil {
            try writer.flush()
            if let closed = try store.closeOpenTrip() {
                logger.notice("trip \(closed) left open at the last stop: the ride did not go on, closed at its last point")
                publish(DaemonEvent(kind: "trip_closed", message: "trip closed after restart", fields: ["trip": closed]))
                workQueued()
            }
            try replaceWriter()
        }
        if pipeline.status.tripPhase == .idle,
            var fresh = pendingConfiguration.withLock({ c in
                defer { c = nil }; return c
            })
        {
            fresh.sensitivity = pipeline.configuration.sensitivity
            pipeline = Pipeline(configuration: fresh)
            logger.info("chain settings reloaded")
        }
        try adoptCalibration()
        refreshStatus(force: false)
    }

    private var nextCalibrationCheck = 0.0

    /// Between rides, the sensitivity the rider's latest answers gave (`drafts confirm`
    /// runs in another process): looked up every 30 s while idle, applied before the next trip.
    private func adoptCalibration() throws {
        let now = ProcessInfo.processInfo.systemUptime
        guard pipeline.status.tripPhase == .idle, now >= nextCalibrationCheck else { return }
        nextCalibrationCheck = now + 30
        let sensitivity = try store.detectorSensitivity()
        guard sensitivity != pipeline.configuration.sensitivity else { return }
        var configuration = pipeline.configuration
        configuration.sensitivity = sensitivity
        pipeline = Pipeline(configuration: configuration)
        logger.notice("detector calibration from the rider's answers applied")
    }

    /// A fresh writer after a trip was closed behind the old one's back (recovery).
    private func replaceWriter() throws {
        summary.trackPoints += writer.trackPointsKept - writer.diskFull.droppedTrackPoints
        summary.droppedTrackPoints += writer.diskFull.droppedTrackPoints
        writer = try StoreWriter(store: store, policy: writerPolicy)
    }

    private func handle(_ outputs: [ChainOutput]) throws {
        summary.outputs += outputs.count
        for output in outputs {
            switch recovery.action(for: output) {
            case .resume(let id):
                logger.notice("the ride goes on: trip \(id) continues")
                publish(DaemonEvent(kind: "trip_resumed", message: "trip continues after restart", fields: ["trip": id]))
                continue
            case .closeResumed(let id):
                try writer.flush()
                _ = try store.closeOpenTrip()
                try replaceWriter()
                summary.tripsEnded += 1
                logger.notice("trip \(id) ended (continued after a restart; totals from all its points)")
                publish(DaemonEvent(kind: "trip_ended", message: "trip ended", fields: ["trip": id]))
                workQueued()
                continue
            case .write:
                break
            }
            try writer.append(output, at: lastSampleTime ?? output.sampleTime)
            announce(output)
            if case .obstacle(let e) = output, e.source == .rider { answerMark(e) }
        }
        let fired = writer.firedMilestones
        if fired.count > announcedMilestones {
            for m in fired[announcedMilestones...] {
                publish(DaemonEvent(kind: "milestone", message: "milestone reached", fields: ["milestone": "\(m)"]))
            }
            announcedMilestones = fired.count
        }
    }

    private var announcedMilestones = 0

    /// Puts the rider's new marks into the chain at the current sample time; a mark
    /// outside a trip is refused (an obstacle belongs to a ride).
    private func placeMarks() throws {
        let requests = marks.take()
        if !requests.isEmpty {
            let phase = pipeline.status.tripPhase
            guard phase == .recording || phase == .paused, let now = lastSampleTime else {
                for r in requests { r.reply(.failure("not in a trip (trip state: \(Self.name(pipeline.status.tripPhase)))")) }
                return
            }
            for r in requests {
                let time = labelClock.time(at: now)
                placedMarks.append(RiderMarks.Placed(time: time, kind: r.kind, reply: r.reply))
                try handle(pipeline.process([.label(time, r.kind)]))
            }
        }
        // No fix since: stored once one comes; the rider is told so rather than kept waiting.
        guard let now = lastSampleTime else { return }
        placedMarks.removeAll { mark in
            guard now - mark.time > RiderMarks.positionWaitSeconds else { return false }
            mark.reply(MarkReply(kind: mark.kind.rawValue, trip: currentTripID(), timeS: mark.time.seconds))
            return true
        }
    }

    private func answerMark(_ e: ObstacleEvent) {
        guard let i = placedMarks.firstIndex(where: { $0.time == e.time && $0.kind == e.kind }) else { return }
        let mark = placedMarks.remove(at: i)
        mark.reply(
            MarkReply(
                kind: e.kind.rawValue, trip: currentTripID(), timeS: e.time.seconds,
                lat: e.coordinate?.latitude, lon: e.coordinate?.longitude, speedMps: e.speed))
    }

    /// For the mark's reply only: an unreadable store answers without the trip's id.
    private func currentTripID() -> String? { (try? store.openTripInfo())?.id }

    private func announce(_ output: ChainOutput) {
        switch output {
        case .tripStarted(let t, _):
            logger.info("trip started")
            publish(DaemonEvent(kind: "trip_started", message: "trip started", fields: ["time_s": "\(t.seconds)"]))
        case .tripEnded(let trip):
            summary.tripsEnded += 1
            let km = String(format: "%.2f", trip.statistics.distanceMeters / 1000)
            if trip.hasNoFix {
                logger.debug("trip ended with no fix: not kept")
            } else {
                logger.info("trip ended: \(km) km")
            }
            publish(
                DaemonEvent(
                    kind: "trip_ended", message: "trip ended",
                    fields: ["distance_m": String(format: "%.1f", trip.statistics.distanceMeters)]))
            workQueued()
        case .obstacle(let e):
            summary.obstacles += 1
            var fields = ["kind": e.kind.rawValue, "peak_mps2": String(format: "%.1f", e.peak), "source": e.source.rawValue]
            if let c = e.coordinate { fields["lat"] = "\(c.latitude)"; fields["lon"] = "\(c.longitude)" }
            publish(
                DaemonEvent(
                    kind: "obstacle", message: e.source == .rider ? "obstacle marked by the rider" : "obstacle detected",
                    fields: fields))
        case .sos(let e):
            logger.critical("SOS: impact \(String(format: "%.1f", e.impactPeak)) m/s²")
            publish(DaemonEvent(kind: "sos", message: "possible crash", fields: ["peak_mps2": String(format: "%.1f", e.impactPeak)]))
            workQueued()
        case .activity(_, let state):
            publish(DaemonEvent(kind: "activity", message: state.rawValue, fields: [:]))
        case .trackPoint, .roadQuality:
            break
        }
    }

    private func refreshStatus(force: Bool) {
        let status = pipeline.status
        if let fix = status.lastFix, fix != lastFix {
            lastFix = fix
            board.updatePipeline { p in
                p.lastFixLat = fix.latitude
                p.lastFixLon = fix.longitude
                p.lastFixAt = fix.receivedAt.seconds
            }
        }
        var query: (queue: Int, trip: String?)?
        let now = Double(DispatchTime.now().uptimeNanoseconds) / 1e9
        if force || now >= nextStoreQuery {
            nextStoreQuery = now + 2
            // Best effort for `status`: a store that cannot be read shows as a problem
            // from its diagnostics (Daemon.storeProblems); the counts stay as they were.
            let queue = (try? store.syncDiagnosis(logLines: 0).count(.pending)) ?? 0
            query = (queue, (try? store.openTripInfo())?.id)
        }
        let disk = writer.diskFull
        board.updatePipeline { p in
            p.storeProblem =
                disk.isFull
                ? "disk full: \(disk.heldOutputs) outputs held in memory, \(disk.droppedTrackPoints) track points dropped — free space"
                : nil
            p.tripState = Self.name(status.tripPhase)
            p.tripDistanceM = status.tripStatistics?.distanceMeters
            p.tripDurationS = status.tripStatistics?.elapsedSeconds
            if let query {
                p.queueLength = query.queue
                p.tripID = query.trip
            }
        }
    }

    static func name(_ phase: TripPhase) -> String {
        switch phase {
        case .idle: "idle"
        case .candidate: "starting"
        case .recording: "riding"
        case .paused: "paused"
        }
    }
}

extension ChainOutput {
    var sampleTime: SampleTime {
        switch self {
        case .activity(let t, _), .tripStarted(let t, _): t
        case .trackPoint(let p): p.time
        case .obstacle(let e): e.time
        case .roadQuality(let s): s.endTime
        case .tripEnded(let r): r.endTime
        case .sos(let e): e.time
        }
    }
}
