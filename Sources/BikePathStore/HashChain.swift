import Foundation
import GRDB

/// Tamper evidence. Every stored event, every confirmed draft, every closed trip
/// (its row, which holds a digest of its track points) and every outbox record
/// (the exact payload that will leave the device) gets a link:
/// `link[n] = SHA-256(link[n-1] || n || kind || id || SHA-256(record))`, with
/// `link[0]` = 32 zero bytes. The record hash covers every column of the row in a
/// fixed order (see `canonicalBytes`), so changing any stored byte, deleting a
/// record, or deleting a link breaks the chain at that point.
enum HashChain {
    static let eventColumns = """
        id, trip_id, kind, time_ns, utc_ns, lat, lon, speed, obstacle_kind, peak, energy,
        impact_time_ns, window_rate, window_sha256, source, severity, confidence, strength
        """
    /// The columns of schema v1; `source` and what follows came with v3.
    static let v1EventColumnCount = 14

    /// The values an event's record hash covers: all of `eventColumns`, except that a
    /// row without a `source` (written before schema v3, or an SOS) leaves out the v3
    /// columns, so its hash is the one it was linked with. Setting or clearing any v3
    /// value afterwards still changes the hash.
    static func hashedValues(_ values: [DatabaseValue]) -> [DatabaseValue] {
        guard values.count > v1EventColumnCount, values[v1EventColumnCount].isNull,
            values[v1EventColumnCount...].allSatisfy(\.isNull)
        else { return values }
        return Array(values.prefix(v1EventColumnCount))
    }

    /// Bytes that stand for a row: a type tag per value, then the value in a
    /// fixed-width big-endian or length-prefixed form, so no two rows collide.
    static func canonicalBytes(_ values: [DatabaseValue]) -> [UInt8] {
        var out: [UInt8] = []
        func append64(_ v: UInt64) {
            for s in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt64(s))) }
        }
        for value in values {
            switch value.storage {
            case .null: out.append(0)
            case .int64(let i): out.append(1); append64(UInt64(bitPattern: i))
            case .double(let d): out.append(2); append64(d.bitPattern)
            case .string(let s): out.append(3); append64(UInt64(s.utf8.count)); out += Array(s.utf8)
            case .blob(let b): out.append(4); append64(UInt64(b.count)); out += Array(b)
            }
        }
        return out
    }

    static func eventHash(_ db: Database, id: String) throws -> [UInt8]? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(eventColumns) FROM events WHERE id = ?"), arguments: [id]) else {
            return nil
        }
        return SHA256Hasher.hash(canonicalBytes(hashedValues(Array(row.databaseValues))))
    }

    static func draftHash(_ db: Database, id: String) throws -> [UInt8]? {
        guard let row = try Row.fetchOne(db, sql: "SELECT id, trip_id, confirmed_payload FROM drafts WHERE id = ?", arguments: [id]),
            !(row["confirmed_payload"] as DatabaseValue).isNull
        else { return nil }
        return SHA256Hasher.hash(canonicalBytes(Array(row.databaseValues)))
    }

    /// Every column of a closed trip that leaves the device or decides what does.
    static let tripColumns = """
        id, state, closed_by, start_time_ns, end_time_ns, start_utc_ns, end_utc_ns, distance_m, elapsed_s, moving_s,
        avg_moving_speed, max_speed, elevation_gain_m, co2_avoided_g, path, track_sha256
        """

    static func tripHash(_ db: Database, id: String) throws -> [UInt8]? {
        guard let row = try Row.fetchOne(db, sql: "SELECT \(tripColumns) FROM trips WHERE id = ? AND state = 'closed'", arguments: [id])
        else {
            return nil
        }
        return SHA256Hasher.hash(canonicalBytes(Array(row.databaseValues)))
    }

    /// SHA-256 over a trip's stored track points in time order; nil when none are
    /// stored (retention deletes them once the trip's draft was synced or rejected).
    /// `ground_speed` (schema v5) is covered when it is set; a point without one hashes
    /// as it did before v5, so trips linked earlier still verify.
    static func trackDigest(_ db: Database, tripID: String) throws -> [UInt8]? {
        var bytes: [UInt8] = []
        let rows = try Row.fetchCursor(
            db,
            sql:
                "SELECT time_ns, utc_ns, lat, lon, alt_m, speed, moving, ground_speed FROM track_points WHERE trip_id = ? ORDER BY time_ns",
            arguments: [tripID])
        var any = false
        while let row = try rows.next() {
            any = true
            var values = Array(row.databaseValues)
            if values.last?.isNull == true { values.removeLast() }
            bytes += canonicalBytes(values)
        }
        return any ? SHA256Hasher.hash(bytes) : nil
    }

    /// Links a trip that was just closed: its track digest goes into the row, the row into the chain.
    static func linkTrip(_ db: Database, id: String) throws {
        let digest = try trackDigest(db, tripID: id)
        try db.execute(sql: "UPDATE trips SET track_sha256 = ? WHERE id = ?", arguments: [digest.map { Data($0) }, id])
        guard let hash = try tripHash(db, id: id) else { return }
        var head: Head? = nil
        try append(db, kind: "trip", id: id, recordHash: hash, head: &head)
    }

    /// The chain's id for an outbox record: its kind and id.
    static func outboxKey(kind: String, id: String) -> String { kind + "/" + id }

    static func outboxHash(kind: String, id: String, payload: String) -> [UInt8] {
        SHA256Hasher.hash(canonicalBytes([kind.databaseValue, id.databaseValue, payload.databaseValue]))
    }

    static func outboxHash(_ db: Database, key: String) throws -> [UInt8]? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT record_kind, record_id, payload FROM outbox WHERE record_kind || '/' || record_id = ?",
                arguments: [key])
        else { return nil }
        return outboxHash(kind: row["record_kind"], id: row["record_id"], payload: row["payload"])
    }

    /// Links an outbox record that was just queued: the bytes that will be sent.
    static func linkOutbox(_ db: Database, kind: String, id: String) throws {
        let key = outboxKey(kind: kind, id: id)
        guard let hash = try outboxHash(db, key: key) else { return }
        var head: Head? = nil
        try append(db, kind: "outbox", id: key, recordHash: hash, head: &head)
    }

    /// Marks the links of outbox rows about to be deleted (sent, or an older unsent
    /// draft revision) as pruned, so that `verify` knows the deletion was the store's.
    static func pruneOutbox(_ db: Database, where condition: String, arguments: StatementArguments = []) throws {
        try db.execute(sql: pruneOutboxSQL(where: condition), arguments: arguments)
    }

    static func pruneOutboxSQL(where condition: String) -> String {
        """
        UPDATE hash_chain SET pruned = 1 WHERE record_kind = 'outbox'
          AND record_id IN (SELECT record_kind || '/' || record_id FROM outbox WHERE \(condition))
        """
    }

    /// The record hash of any linked kind, read from the store as it is now.
    static func currentHash(_ db: Database, kind: String, id: String) throws -> [UInt8]? {
        switch kind {
        case "event": return try eventHash(db, id: id)
        case "trip": return try tripHash(db, id: id)
        case "outbox": return try outboxHash(db, key: id)
        default: return try draftHash(db, id: id)
        }
    }

    static func link(previous: [UInt8], seq: Int64, kind: String, id: String, recordHash: [UInt8]) -> [UInt8] {
        let bytes = previous + canonicalBytes([seq.databaseValue, kind.databaseValue, id.databaseValue]) + recordHash
        return SHA256Hasher.hash(bytes)
    }

    /// The newest link. Valid only inside the write transaction that read it:
    /// another process (the CLI confirming a draft) may append between two.
    struct Head {
        var seq: Int64
        var link: [UInt8]
    }

    static func head(_ db: Database) throws -> Head {
        guard let last = try Row.fetchOne(db.cachedStatement(sql: "SELECT seq, link_sha256 FROM hash_chain ORDER BY seq DESC LIMIT 1"))
        else {
            return Head(seq: 0, link: [UInt8](repeating: 0, count: 32))
        }
        return Head(seq: last["seq"], link: Array(last["link_sha256"] as Data))
    }

    /// Appends a link for a record that was just written in this transaction,
    /// hashing the row as stored.
    static func append(_ db: Database, kind: String, id: String) throws {
        let recordHash: [UInt8]?
        switch kind {
        case "event": recordHash = try eventHash(db, id: id)
        default: recordHash = try draftHash(db, id: id)
        }
        guard let recordHash else { return }
        var head: Head? = nil
        try append(db, kind: kind, id: id, recordHash: recordHash, head: &head)
    }

    /// Appends a link with a record hash computed by the caller; `head` caches
    /// the newest link for the rest of the transaction.
    static func append(_ db: Database, kind: String, id: String, recordHash: [UInt8], head: inout Head?) throws {
        let previous = try head ?? Self.head(db)
        let seq = previous.seq + 1
        let link = link(previous: previous.link, seq: seq, kind: kind, id: id, recordHash: recordHash)
        try Ingest.run(
            db.cachedStatement(
                sql: "INSERT INTO hash_chain (seq, record_kind, record_id, record_sha256, link_sha256) VALUES (?, ?, ?, ?, ?)"),
            [seq.databaseValue, kind.databaseValue, id.databaseValue, Data(recordHash).databaseValue, Data(link).databaseValue], db)
        head = Head(seq: seq, link: link)
    }

    /// The record hash of values about to be stored in `eventColumns` order.
    /// SQLite stores a NaN REAL as NULL, so NaN hashes as NULL, as it will read back.
    static func recordHash(_ values: [DatabaseValue]) -> [UInt8] {
        SHA256Hasher.hash(
            canonicalBytes(
                hashedValues(values).map { value in
                    if case .double(let d) = value.storage, d.isNaN { return .null }
                    return value
                }))
    }
}

/// The outcome of `Store.verify()`.
public struct VerifyReport: Sendable, Equatable, Codable {
    public var links: Int
    public var prunedRecords: Int
    /// The first broken link, nil when the whole chain holds.
    public var firstBreak: Break?

    /// Where the chain breaks: the link's sequence number, its record, and why.
    public struct Break: Sendable, Equatable, Codable {
        public var seq: Int64
        public var recordKind: String
        public var recordID: String
        public var reason: String
    }

    public var ok: Bool { firstBreak == nil }
}

extension Store {
    /// Walks the hash chain from the start and reports the first link that does
    /// not hold: a record changed, a record or link deleted, or an event that
    /// was never linked.
    public func verify() throws -> VerifyReport {
        try pool.read { db in
            var report = VerifyReport(links: 0, prunedRecords: 0, firstBreak: nil)
            var previous = [UInt8](repeating: 0, count: 32)
            var expectedSeq: Int64 = 1
            var linked = Set<String>()
            let rows = try Row.fetchCursor(db, sql: "SELECT * FROM hash_chain ORDER BY seq")
            while let row = try rows.next() {
                let seq: Int64 = row["seq"]
                let kind: String = row["record_kind"]
                let id: String = row["record_id"]
                let stored = Array(row["record_sha256"] as Data)
                let storedLink = Array(row["link_sha256"] as Data)
                func broken(_ reason: String) -> VerifyReport {
                    var r = report
                    r.firstBreak = .init(seq: seq, recordKind: kind, recordID: id, reason: reason)
                    return r
                }
                if seq != expectedSeq {
                    return broken("link \(expectedSeq) is missing (next link found is \(seq))")
                }
                if HashChain.link(previous: previous, seq: seq, kind: kind, id: id, recordHash: stored) != storedLink {
                    return broken("link hash does not match its predecessor and record hash (link row altered)")
                }
                let pruned: Bool = row["pruned"]
                let actual = try HashChain.currentHash(db, kind: kind, id: id)
                if let actual {
                    if actual != stored { return broken("\(kind) \(id) was changed after it was linked") }
                    if kind == "event", let problem = try windowProblem(db, id: id) { return broken(problem) }
                    if kind == "trip", let problem = try trackProblem(db, id: id) { return broken(problem) }
                } else if pruned {
                    report.prunedRecords += 1
                } else {
                    return broken("\(kind) \(id) was deleted")
                }
                linked.insert(kind + "/" + id)
                previous = storedLink
                expectedSeq += 1
                report.links += 1
            }
            // A record that is stored but not linked was inserted behind the chain's back.
            let unlinked: [(kind: String, sql: String)] = [
                ("event", "SELECT id FROM events ORDER BY rowid"),
                ("trip", "SELECT id FROM trips WHERE state = 'closed' ORDER BY seq"),
                ("outbox", "SELECT record_kind || '/' || record_id FROM outbox ORDER BY seq"),
            ]
            for (kind, sql) in unlinked {
                if let stray = try String.fetchAll(db, sql: sql).first(where: { !linked.contains(kind + "/" + $0) }) {
                    report.firstBreak = .init(
                        seq: expectedSeq, recordKind: kind, recordID: stray, reason: "\(kind) \(stray) is not in the chain")
                    break
                }
            }
            return report
        }
    }

    /// A trip's track points are hashed into its row (`track_sha256`) so that
    /// retention may delete them all; while any are stored they must match.
    private func trackProblem(_ db: Database, id: String) throws -> String? {
        let expected = try Data.fetchOne(db, sql: "SELECT track_sha256 FROM trips WHERE id = ?", arguments: [id])
        guard let actual = try HashChain.trackDigest(db, tripID: id) else { return nil }
        return expected.map(Array.init) == actual ? nil : "trip \(id): its track points were changed after it was linked"
    }

    /// Nil when an outbox record is exactly what was linked when it was queued;
    /// otherwise why it must not be sent (sync quarantines it). Read off the caller's thread.
    public func outboxIntegrityProblem(_ item: OutboxItem) async throws -> String? {
        try await pool.read { db in try Self.outboxIntegrityProblem(db, item) }
    }

    private static func outboxIntegrityProblem(_ db: Database, _ item: OutboxItem) throws -> String? {
        let key = HashChain.outboxKey(kind: item.kind.rawValue, id: item.recordID)
        guard
            let linked = try Data.fetchOne(
                db, sql: "SELECT record_sha256 FROM hash_chain WHERE record_kind = 'outbox' AND record_id = ?",
                arguments: [key])
        else {
            return "\(key) is not in the hash chain: it was not queued by bikepathd"
        }
        let actual = HashChain.outboxHash(kind: item.kind.rawValue, id: item.recordID, payload: item.payload)
        return Array(linked) == actual ? nil : "\(key) was changed after it was queued (its SHA-256 no longer matches the hash chain)"
    }

    /// The IMU window is hashed separately so retention may drop it; when it is
    /// still there it must match its recorded hash.
    private func windowProblem(_ db: Database, id: String) throws -> String? {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT w.samples, e.window_sha256 FROM event_windows w JOIN events e ON e.id = w.event_id WHERE w.event_id = ?
                    """, arguments: [id])
        else { return nil }
        let window: Data = row["samples"]
        guard let expected = row["window_sha256"] as Data? else { return "event \(id) has a window but no window hash" }
        return SHA256Hasher.hash(window) == Array(expected) ? nil : "event \(id): IMU window was changed after it was linked"
    }
}
