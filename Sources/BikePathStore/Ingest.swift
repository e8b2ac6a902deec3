import BikePathAPI
import BikePathCore
import Foundation
import GRDB
import GRDBSQLite

/// Writes chain outputs into the schema, inside a transaction the writer owns.
/// Every insert is idempotent (primary or unique keys plus `OR IGNORE`) so that
/// replaying an output that was already committed never duplicates a row.
struct Ingest {
    var openTripID: String?
    let configuration: StoreConfiguration
    /// The store's `meta.device_key`: trip ids are derived from it and the trip's start.
    let deviceKey: String
    /// Milestones reached by the outputs applied so far.
    var fired: [Milestone] = []
    /// The hash chain's newest link within the current transaction (reset per commit).
    var chainHead: HashChain.Head?

    static func loadOpenTrip(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: "SELECT id FROM trips WHERE state = 'open'")
    }

    mutating func apply(_ output: ChainOutput, _ db: Database) throws {
        switch output {
        case .activity(let time, let state):
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO activity_changes (time_ns, state) VALUES (?, ?)")
                .execute(arguments: [time.nanoseconds, state.rawValue])
        case .tripStarted(let time, let utc):
            openTripID = try beginTrip(start: time, utc: utc, db)
        case .trackPoint(let point):
            // Fixes outside a trip are not part of any track (BBP sessions are rider-started).
            guard let trip = openTripID else { return }
            try Self.insertTrackPoint(point, trip: trip, db)
        case .obstacle(let event):
            let window = Self.floatBlob(event.window)
            let id = DeviceID.make()
            _ = try insertEvent(
                id: id,
                [
                    openTripID.databaseValue, "obstacle".databaseValue, event.time.nanoseconds.databaseValue,
                    event.utc?.nanosecondsSince1970.databaseValue ?? .null, event.coordinate?.latitude.databaseValue ?? .null,
                    event.coordinate?.longitude.databaseValue ?? .null, event.speed?.databaseValue ?? .null,
                    event.kind.rawValue.databaseValue, event.peak.databaseValue, event.energy.databaseValue, DatabaseValue.null,
                    event.windowRate.databaseValue, Data(SHA256Hasher.hash(window)).databaseValue,
                    event.source.rawValue.databaseValue, event.severity.databaseValue, event.confidence.databaseValue,
                    event.strength.databaseValue,
                ], window: window, peakIndex: event.windowPeakIndex, db)
        case .roadQuality(let segment):
            try db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO road_quality (trip_id, start_time_ns, end_time_ns, start_lat, start_lon, end_lat, end_lon,
                                                        length_m, roughness, status)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                openTripID, segment.startTime.nanoseconds, segment.endTime.nanoseconds,
                segment.start?.latitude, segment.start?.longitude, segment.end?.latitude,
                segment.end?.longitude, segment.lengthMeters, segment.roughness, segment.status.rawValue,
            ])
        case .tripEnded(let record):
            try endTrip(record, db)
        case .sos(let sos):
            let id = DeviceID.make()
            let window = Self.floatBlob(sos.window)
            let fix = sos.lastFix
            guard
                try insertEvent(
                    id: id,
                    [
                        openTripID.databaseValue, "sos".databaseValue, sos.time.nanoseconds.databaseValue,
                        fix?.time?.nanosecondsSince1970.databaseValue ?? .null, fix?.latitude.databaseValue ?? .null,
                        fix?.longitude.databaseValue ?? .null, fix?.speed.databaseValue ?? .null,
                        DatabaseValue.null, sos.impactPeak.databaseValue, DatabaseValue.null, sos.impactTime.nanoseconds.databaseValue,
                        window.isEmpty ? .null : sos.windowRate.databaseValue,
                        window.isEmpty ? .null : Data(SHA256Hasher.hash(window)).databaseValue,
                        DatabaseValue.null, DatabaseValue.null, DatabaseValue.null, DatabaseValue.null,
                    ], window: window, db)
            else { return }
            // An SOS needs no review: it goes to the outbox at once, ahead of everything.
            let payload = SOSPayload(
                id: id, time_ns: sos.time.nanoseconds, impact_time_ns: sos.impactTime.nanoseconds,
                impact_peak: sos.impactPeak, utc_ns: fix?.time?.nanosecondsSince1970,
                lat: fix?.latitude, lon: fix?.longitude)
            try Outbox.enqueue(db, kind: .sos, id: id, payload: try JSONText.compact(payload))
            chainHead = nil  // the outbox record was linked after the event
        }
    }

    /// Inserts an event row (`values`: every column of `HashChain.eventColumns` after the
    /// id, in that order) with its IMU window, and links it into the hash chain, hashed
    /// from the values as they are stored. False when the event was already there (an
    /// output replayed after a crash): nothing is written then.
    private mutating func insertEvent(
        id: String, _ values: [DatabaseValue], window: Data, peakIndex: Int? = nil,
        _ db: Database
    ) throws -> Bool {
        let row = [id.databaseValue] + values
        try Self.run(
            db.cachedStatement(
                sql: """
                    INSERT OR IGNORE INTO events (\(HashChain.eventColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """), row, db)
        guard db.changesCount > 0 else { return false }
        if !window.isEmpty {
            try Self.run(
                db.cachedStatement(sql: "INSERT INTO event_windows (event_id, samples, peak_index) VALUES (?, ?, ?)"),
                [id.databaseValue, window.databaseValue, peakIndex?.databaseValue ?? .null], db)
        }
        try HashChain.append(db, kind: "event", id: id, recordHash: HashChain.recordHash(row), head: &chainHead)
        return true
    }

    private mutating func endTrip(_ record: TripRecord, _ db: Database) throws {
        let stats = record.statistics
        let tripID: String
        if let open = openTripID {
            tripID = open
        } else {
            tripID = try beginTrip(start: record.startTime, utc: record.startUTC, db)
        }
        openTripID = nil
        guard try String.fetchOne(db, sql: "SELECT state FROM trips WHERE id = ?", arguments: [tripID]) == "open" else {
            return  // already ended and drafted: a replayed duplicate
        }
        if record.hasNoFix,
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT NOT EXISTS (SELECT 1 FROM track_points WHERE trip_id = ?1) AND NOT EXISTS (SELECT 1 FROM events WHERE trip_id = ?1)
                        AND NOT EXISTS (SELECT 1 FROM road_quality WHERE trip_id = ?1)
                    """, arguments: [tripID]) == true
        {
            // Nothing to review, publish or count: not kept (`TripRecord.hasNoFix`).
            try db.execute(sql: "DELETE FROM trips WHERE id = ?", arguments: [tripID])
            return
        }
        try db.execute(
            sql: """
                UPDATE trips SET state = 'closed', closed_by = 'chain', end_time_ns = ?, end_utc_ns = ?, distance_m = ?,
                    elapsed_s = ?, moving_s = ?, avg_moving_speed = ?, max_speed = ?, elevation_gain_m = ?, co2_avoided_g = ?, path = ?
                WHERE id = ?
                """,
            arguments: [
                record.endTime.nanoseconds, record.endUTC?.nanosecondsSince1970, stats.distanceMeters,
                stats.elapsedSeconds, stats.movingSeconds, stats.averageMovingSpeed, stats.maxSpeed,
                stats.elevationGainMeters, stats.co2AvoidedGrams, Self.pathBlob(record.path), tripID,
            ])
        try HashChain.linkTrip(db, id: tripID)
        chainHead = nil
        try Drafts.create(db, tripID: tripID, reviewBudget: configuration.reviewBudget)
        fired += try Milestones.check(db, tripID: tripID, steps: configuration.milestoneSteps)
    }

    /// The id of the trip that starts at `start`. A replay (again, or after a kill)
    /// delivers a start again: the same id, and the stored trip is kept (open: it goes
    /// on; closed: its outputs are stored already). A new trip is inserted open, and one
    /// left open before it (a stop without an end) is closed at its last point.
    private mutating func beginTrip(start: SampleTime, utc: UTCTime?, _ db: Database) throws -> String {
        let id = DeviceID.trip(deviceKey: deviceKey, start: start.nanoseconds, utc: utc?.nanosecondsSince1970)
        if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM trips WHERE id = ?)", arguments: [id]) == true { return id }
        if let stale = try Self.loadOpenTrip(db) {
            try Recovery.closeAtLastPoint(db, tripID: stale, configuration: configuration)
            chainHead = nil  // recovery linked the trip
        }
        try db.execute(
            sql: """
                INSERT INTO trips (id, seq, state, start_time_ns, start_utc_ns)
                VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM trips), 'open', ?, ?)
                """, arguments: [id, start.nanoseconds, utc?.nanosecondsSince1970])
        return id
    }

    /// The hottest insert (one per kept fix) binds straight through the SQLite C
    /// API on GRDB's cached statement: GRDB's generic argument boxing costs more
    /// than the insert itself (see bench/store.sh).
    private static func insertTrackPoint(_ point: TrackPoint, trip: String, _ db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO track_points (trip_id, time_ns, utc_ns, lat, lon, alt_m, speed, moving, ground_speed)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        _ = trip.withCString { sqlite3_bind_text(s, 1, $0, -1, transient) }
        sqlite3_bind_int64(s, 2, point.time.nanoseconds)
        if let utc = point.utc { sqlite3_bind_int64(s, 3, utc.nanosecondsSince1970) } else { sqlite3_bind_null(s, 3) }
        sqlite3_bind_double(s, 4, point.coordinate.latitude)
        sqlite3_bind_double(s, 5, point.coordinate.longitude)
        if let alt = point.altitudeMSL { sqlite3_bind_double(s, 6, alt) } else { sqlite3_bind_null(s, 6) }
        sqlite3_bind_double(s, 7, point.speed)
        sqlite3_bind_int64(s, 8, point.moving ? 1 : 0)
        if let v = point.groundSpeed { sqlite3_bind_double(s, 9, v) } else { sqlite3_bind_null(s, 9) }
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

    /// Binds `values` and steps a cached statement through the C API (the
    /// event path's equivalent of `insertTrackPoint`).
    static func run(_ statement: Statement, _ values: [DatabaseValue], _ db: Database) throws {
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (i, value) in values.enumerated() {
            let index = Int32(i + 1)
            switch value.storage {
            case .null: sqlite3_bind_null(s, index)
            case .int64(let v): sqlite3_bind_int64(s, index, v)
            case .double(let v): sqlite3_bind_double(s, index, v)
            case .string(let v): _ = v.withCString { sqlite3_bind_text(s, index, $0, -1, transient) }
            case .blob(let v): _ = v.withUnsafeBytes { sqlite3_bind_blob(s, index, $0.baseAddress, Int32($0.count), transient) }
            }
        }
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                sql: statement.sql)
        }
    }

    static func floatBlob(_ values: [Float]) -> Data {
        // Stored little-endian; every platform Swift runs on here is little-endian,
        // the per-value path keeps a big-endian one correct.
        if 1.littleEndian == 1 { return values.withUnsafeBytes { Data($0) } }
        var data = Data(capacity: values.count * 4)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func floats(_ data: Data) -> [Float] {
        let bytes = [UInt8](data)
        return stride(from: 0, to: bytes.count - 3, by: 4).map { i in
            // Named bytes, typed: Swift 6.2 cannot type-check the one-line form in reasonable time.
            let b0 = UInt32(bytes[i])
            let b1: UInt32 = UInt32(bytes[i + 1]) << 8
            let b2: UInt32 = UInt32(bytes[i + 2]) << 16
            let b3: UInt32 = UInt32(bytes[i + 3]) << 24
            return Float(bitPattern: b0 | b1 | b2 | b3)
        }
    }

    static func pathBlob(_ path: [Coordinate]) -> Data {
        var data = Data(capacity: path.count * 16)
        for c in path {
            withUnsafeBytes(of: c.latitude.bitPattern.littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: c.longitude.bitPattern.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    static func path(_ data: Data?) -> [Coordinate] {
        guard let data else { return [] }
        let bytes = [UInt8](data)
        func double(_ at: Int) -> Double {
            var bits: UInt64 = 0
            for k in 0..<8 { bits |= UInt64(bytes[at + k]) << UInt64(8 * k) }
            return Double(bitPattern: bits)
        }
        return stride(from: 0, to: bytes.count - 15, by: 16).map { Coordinate(latitude: double($0), longitude: double($0 + 8)) }
    }
}

/// The outbox payload of an SOS, as the store queues it and the sync client reads it
/// back (`UploadBuilder`): one type, so writer and reader cannot drift apart.
public struct SOSPayload: Codable, Sendable {
    public var id: String
    public var time_ns: Int64
    public var impact_time_ns: Int64
    public var impact_peak: Double
    public var utc_ns: Int64?
    public var lat: Double?
    public var lon: Double?
}
