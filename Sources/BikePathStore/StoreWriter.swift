import BikePathCore
import Foundation
import GRDB

/// When the writer commits and which fixes it keeps.
public struct WriterPolicy: Sendable {
    /// Commit once the oldest uncommitted output is this old in sample time.
    public var maxBatchSeconds: Double = 1.0
    /// ... or once this many outputs wait. Live, the one-second rule always
    /// fires first (a ride makes tens of rows a second); this bounds memory and
    /// the batch size when a backlog is replayed faster than real time. Each
    /// commit costs two fsyncs (~5 ms each on the bench VM, more on an SD card).
    public var maxBatchRows: Int = 5000
    /// Track points: keep a fix once it is this far from the last kept one ...
    public var minPointDistanceMeters: Double = 3
    /// ... and at least this much later, or whenever this much time passed.
    public var minPointSeconds: Double = 1
    public var maxPointSeconds: Double = 15
    /// While the disk is full, outputs wait in memory up to this many; past it
    /// track points are dropped (oldest first) so that events are kept.
    public var maxHeldOutputs: Int = 20_000
    /// Room kept for events and SOS on a full disk (`DiskReserve`), released
    /// `reserveStepBytes` at a time. 512 KiB holds ~40 commits of one SOS with
    /// its 16 KB IMU window, its outbox row and WAL frames (measured on the
    /// crash recording: one SOS commit grows the WAL by ~12 KB). 0: no reserve.
    public var reserveBytes: Int = WriterPolicy.defaultReserveBytes
    public var reserveStepBytes: Int = WriterPolicy.defaultReserveStepBytes
    /// Also what `Store.open` reserves for a new store before SQLite writes a page.
    public static let defaultReserveBytes = 512 * 1024
    public static let defaultReserveStepBytes = 64 * 1024
    /// Creates the defaults above.
    public init() {}
}

/// Disk-full state, for `diagnose`.
public struct DiskFullStatus: Sendable, Equatable, Codable {
    public var isFull = false
    /// Commits that failed with SQLITE_FULL since start.
    public var failedCommits = 0
    /// Track points dropped because the in-memory hold was full.
    public var droppedTrackPoints = 0
    public var heldOutputs = 0
    /// Times the reserve gave room to a commit that carried an event or SOS.
    public var reserveReleases = 0
}

/// What a writer still holds that it could not commit (the disk stayed full).
public struct UncommittedOutputs: Sendable, Equatable, Codable, CustomStringConvertible {
    public var sos = 0
    public var obstacles = 0
    public var trackPoints = 0
    public var tripEnds = 0
    /// Activity changes, trip starts, road quality.
    public var other = 0

    /// Creates all-zero counts.
    public init() {}

    init(_ outputs: some Sequence<ChainOutput>) {
        for output in outputs {
            switch output {
            case .sos: sos += 1
            case .obstacle: obstacles += 1
            case .trackPoint: trackPoints += 1
            case .tripEnded: tripEnds += 1
            case .activity, .tripStarted, .roadQuality: other += 1
            }
        }
    }

    public var total: Int { sos + obstacles + trackPoints + tripEnds + other }
    public var isEmpty: Bool { total == 0 }

    public var description: String {
        "\(sos) SOS, \(obstacles) obstacles, \(tripEnds) trip ends, \(trackPoints) track points, \(other) other outputs"
    }
}

/// Batches chain outputs and commits them: at least every `maxBatchSeconds` of
/// *sample* time (the caller passes it; the writer never reads a clock), after
/// `maxBatchRows` outputs, and at once for a trip end or an SOS. A killed
/// process therefore loses at most about one second of outputs.
///
/// Single-threaded: one task owns the writer.
public final class StoreWriter {
    public let store: Store
    public let policy: WriterPolicy
    private var ingest: Ingest
    private var pending: [(output: ChainOutput, position: Int64?)] = []
    private var batchStart: SampleTime?
    private var lastKept: (time: SampleTime, coordinate: Coordinate)?
    public private(set) var diskFull = DiskFullStatus()
    /// How much of `diskFull` is already recorded in the meta table.
    private var reportedFailures = 0, reportedDrops = 0
    /// While the disk is full, retries back off (1, 2, 4 … 32 s of sample time)
    /// so that a growing hold is not re-applied on every sample.
    private var retryDelay = 1.0
    private var lastNow: SampleTime?
    /// The caller's position (e.g. a replay index) of the last committed output.
    public private(set) var committedPosition: Int64?
    /// Track points appended since this writer was made that the thinning kept
    /// (`diskFull.droppedTrackPoints` of them may have been dropped since).
    public private(set) var trackPointsKept = 0
    /// Milestones reached since this writer was made, in order.
    public private(set) var firedMilestones: [Milestone] = []
    private let reserve: DiskReserve
    /// Outputs the final `flush()` could not commit; empty after a flush that
    /// committed everything.
    public private(set) var uncommitted = UncommittedOutputs()

    /// Creates the writer of `store`, resuming its open trip and committed position; makes the
    /// store's device key on first use.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read or the key written.
    public init(store: Store, policy: WriterPolicy = WriterPolicy()) throws {
        self.store = store
        self.policy = policy
        reserve = DiskReserve(storePath: store.path, bytes: policy.reserveBytes, step: policy.reserveStepBytes)
        reserve.refill()
        let deviceKey = try Self.deviceKey(store)
        let (open, cursor, last) = try store.pool.read { db -> (String?, Int64?, Row?) in
            let open = try Ingest.loadOpenTrip(db)
            let cursor = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'writer_position'").flatMap { Int64($0) }
            let last = try open.flatMap {
                try Row.fetchOne(
                    db, sql: "SELECT time_ns, lat, lon FROM track_points WHERE trip_id = ? ORDER BY time_ns DESC LIMIT 1", arguments: [$0])
            }
            return (open, cursor, last)
        }
        ingest = Ingest(openTripID: open, configuration: store.configuration, deviceKey: deviceKey)
        committedPosition = cursor
        if let last {
            lastKept = (SampleTime(nanoseconds: last["time_ns"]), Coordinate(latitude: last["lat"], longitude: last["lon"]))
        }
    }

    /// The store's random key that trip ids derive from (`DeviceID.trip`), made by
    /// the first writer; read-only after that, so a full disk does not stop a writer.
    private static func deviceKey(_ store: Store) throws -> String {
        let read = { try store.pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'device_key'") } }
        if let key = try read() { return key }
        try store.pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO meta (key, value) VALUES ('device_key', ?)", arguments: [DeviceID.makeKey()])
        }
        return try read() ?? ""
    }

    /// Adds one output. `now` is the chain's current sample time; `position`
    /// is an optional caller cursor stored with the commit (replay resumes after it).
    public func append(_ output: ChainOutput, at now: SampleTime, position: Int64? = nil) throws {
        if case .trackPoint(let point) = output {
            guard keep(point) else { return }
            trackPointsKept += 1
        }
        if case .tripStarted = output { lastKept = nil }
        // A trip with no fix whose start still waits here cancels it: neither reaches SQLite
        // (a marker-only recording spent ~0.3 ms of statements on each such pair).
        if case .tripEnded(let record) = output, record.hasNoFix, let last = pending.last,
            case .tripStarted(let start, _) = last.output, start == record.startTime
        {
            pending.removeLast()
            if pending.isEmpty { batchStart = nil }
            return
        }
        pending.append((output, position))
        if batchStart == nil { batchStart = now }
        let urgent: Bool
        switch output {
        // A trip with no fix is not kept (`TripRecord.hasNoFix`): no reason to sync the disk
        // for it. 150,000 of them (a marker-only recording) took an fsync each, over 60 s.
        case .tripEnded(let record): urgent = !record.hasNoFix
        case .sos: urgent = true
        default: urgent = false
        }
        lastNow = now
        if urgent || (pending.count >= policy.maxBatchRows && !diskFull.isFull) { try commit() } else { try tick(at: now) }
    }

    /// Commits when the batch is due. Call it on every sample even when the
    /// chain produced nothing, so that a quiet stretch still commits in time.
    public func tick(at now: SampleTime) throws {
        lastNow = now
        guard let start = batchStart, now - start >= (diskFull.isFull ? retryDelay : policy.maxBatchSeconds) else { return }
        try commit()
    }

    /// Commits whatever waits (clean shutdown, or tests). On a disk that stays
    /// full the track points go, then the whole reserve, and what still cannot
    /// be committed is counted in `uncommitted` (and, if even that fits, in `meta`
    /// for `diagnose`) instead of vanishing silently.
    public func flush() throws {
        try commit()
        guard !pending.isEmpty else {
            uncommitted = UncommittedOutputs()
            return
        }
        dropHeldTrackPoints()
        while !pending.isEmpty, reserve.release(keeping: 0) { try commit() }
        uncommitted = UncommittedOutputs(pending.map(\.output))
        guard !uncommitted.isEmpty else { return }
        let lost = [
            ("disk_full_lost_sos", uncommitted.sos), ("disk_full_lost_events", uncommitted.obstacles),
            ("disk_full_lost_outputs", uncommitted.total),
            ("disk_full_failed_commits", diskFull.failedCommits - reportedFailures),
            ("disk_full_dropped_points", diskFull.droppedTrackPoints - reportedDrops),
        ]
        do {
            try store.pool.write { db in
                for (key, value) in lost where value > 0 { try Self.addToMeta(db, key: key, value) }
            }
            reportedFailures = diskFull.failedCommits
            reportedDrops = diskFull.droppedTrackPoints
        } catch {
            // Not even the counters fit: the caller's log and exit status are all that is left.
        }
    }

    private func keep(_ point: TrackPoint) -> Bool {
        guard let last = lastKept else {
            lastKept = (point.time, point.coordinate)
            return true
        }
        let dt = point.time - last.time
        let moved = Geodesic.distance(last.coordinate, point.coordinate)
        guard (moved >= policy.minPointDistanceMeters && dt >= policy.minPointSeconds) || dt >= policy.maxPointSeconds else {
            return false
        }
        lastKept = (point.time, point.coordinate)
        return true
    }

    private func commit() throws {
        guard !pending.isEmpty else { return }
        var next = ingest
        next.fired = []
        next.chainHead = nil
        let batch = pending
        let recordDiskFull = diskFull.failedCommits > reportedFailures || diskFull.droppedTrackPoints > reportedDrops
        do {
            try store.pool.write { db in
                for item in batch { try next.apply(item.output, db) }
                if let position = batch.last(where: { $0.position != nil })?.position {
                    try db.execute(
                        sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('writer_position', ?)", arguments: ["\(position)"])
                }
                if recordDiskFull {
                    // The first commit after a full disk leaves a trace for `diagnose`.
                    try Self.addToMeta(db, key: "disk_full_failed_commits", diskFull.failedCommits - reportedFailures)
                    try Self.addToMeta(db, key: "disk_full_dropped_points", diskFull.droppedTrackPoints - reportedDrops)
                }
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_FULL {
            holdWhileFull()
            if useReserve() { try commit() }
            return
        }
        ingest = next
        firedMilestones += next.fired
        if let position = batch.last(where: { $0.position != nil })?.position { committedPosition = position }
        pending.removeAll(keepingCapacity: true)
        batchStart = nil
        // A trip end is the moment old, synced data may have to make room.
        if batch.contains(where: { if case .tripEnded(let record) = $0.output { !record.hasNoFix } else { false } }) {
            store.enforceBudgetRecordingFailure()
        }
        // Room came back after a full stretch: the reserve grows back (at most a quarter of the free room).
        if diskFull.isFull { reserve.refill() }
        diskFull.isFull = false
        diskFull.heldOutputs = 0
        retryDelay = 1
        reportedFailures = diskFull.failedCommits
        reportedDrops = diskFull.droppedTrackPoints
    }

    /// Counters in `meta` add up across runs.
    private static func addToMeta(_ db: Database, key: String, _ value: Int) throws {
        try db.execute(
            sql: """
                INSERT INTO meta (key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + CAST(excluded.value AS INTEGER)
                """, arguments: [key, "\(value)"])
    }

    /// A held batch that carries an SOS or an obstacle gets room from the
    /// reserve: its track points are dropped (they would eat the room) and one
    /// step is freed. Obstacles keep the lower half of the reserve for an SOS.
    /// True when room was freed and the commit should be tried again.
    private func useReserve() -> Bool {
        var hasSOS = false, hasEvent = false
        for item in pending {
            switch item.output {
            case .sos: hasSOS = true
            case .obstacle: hasEvent = true
            default: break
            }
        }
        guard hasSOS || hasEvent, reserve.release(keeping: hasSOS ? 0 : reserve.bytes / 2) else { return false }
        dropHeldTrackPoints()
        diskFull.reserveReleases += 1
        return true
    }

    private func dropHeldTrackPoints() {
        pending.removeAll { item in
            guard case .trackPoint = item.output else { return false }
            diskFull.droppedTrackPoints += 1
            return true
        }
        diskFull.heldOutputs = pending.count
    }

    /// The disk is full: keep running, keep every event, and try again at the
    /// next commit. The hold is bounded: track points go first.
    private func holdWhileFull() {
        diskFull.isFull = true
        diskFull.failedCommits += 1
        retryDelay = diskFull.failedCommits == 1 ? 1 : min(32, retryDelay * 2)
        batchStart = lastNow ?? batchStart
        var excess = pending.count - policy.maxHeldOutputs
        if excess > 0 {
            pending.removeAll { item in
                guard excess > 0, case .trackPoint = item.output else { return false }
                excess -= 1
                diskFull.droppedTrackPoints += 1
                return true
            }
        }
        diskFull.heldOutputs = pending.count
    }
}
