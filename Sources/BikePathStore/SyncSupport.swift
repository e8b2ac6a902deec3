import BikePathCore
import Foundation
import GRDB

// What the sync client (BikePathSync) needs from the store, added
// beside the outbox without changing it: queueing trips and draft revisions,
// withholding a stream whose consent was turned off, settings in `meta`, and
// the figures `diagnose` and `bikepathd sync status` show.

/// A closed trip or pending draft revision that sync may queue.
public struct SyncCandidate: Sendable, Equatable {
    public var kind: OutboxKind
    /// The draft behind it (a trip is read through its draft's document).
    public var draftID: String
    /// The outbox key: the trip id, or `<draft id>_r<edits>` for a draft revision.
    public var recordID: String
}

/// What sync holds and did, for `diagnose` and `bikepathd sync status`: counts per kind,
/// quarantined records and the recent log.
public struct SyncDiagnosis: Sendable, Equatable, Codable {
    /// A record sync gave up on: its kind, id, why and after how many attempts.
    public struct Quarantined: Sendable, Equatable, Codable {
        public var kind: String
        public var id: String
        public var reason: String
        public var attempts: Int
    }
    /// One line of the sync log.
    public struct LogLine: Sendable, Equatable, Codable {
        public var utcNanoseconds: Int64?
        public var kind: String?
        public var id: String?
        public var outcome: String
        public var detail: String?
    }
    public var pending: [String: Int]
    public var withheld: [String: Int]
    public var sent: [String: Int]
    public var quarantined: [Quarantined]
    public var recentLog: [LogLine]
}

extension Store {
    /// Queues a record (idempotent on kind + id). Returns true when it was new.
    @discardableResult
    public func enqueueForSync(kind: OutboxKind, id: String, payload: String) throws -> Bool {
        try pool.write { db in try Outbox.enqueue(db, kind: kind, id: id, payload: payload) }
    }

    /// Trips (closed, draft not rejected) and pending-draft revisions not yet in the outbox, read
    /// off the caller's thread (sync).
    public func syncCandidates(includeDrafts: Bool) async throws -> [SyncCandidate] {
        try await pool.read { db in try Self.syncCandidates(db, includeDrafts: includeDrafts) }
    }

    private static func syncCandidates(_ db: Database, includeDrafts: Bool) throws -> [SyncCandidate] {
        var out: [SyncCandidate] = []
        let trips = try Row.fetchAll(
            db,
            sql: """
                SELECT d.id AS draft_id, t.id AS trip_id FROM trips t JOIN drafts d ON d.trip_id = t.id
                WHERE t.state = 'closed' AND d.state != 'rejected'
                  AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.record_kind = 'trip' AND o.record_id = t.id)
                ORDER BY t.seq
                """)
        out += trips.map { SyncCandidate(kind: .trip, draftID: $0["draft_id"], recordID: $0["trip_id"]) }
        guard includeDrafts else { return out }
        let drafts = try Row.fetchAll(
            db,
            sql: """
                SELECT d.id, d.id || '_r' || (SELECT COUNT(*) FROM draft_edits e WHERE e.draft_id = d.id) AS rev
                FROM drafts d WHERE d.state = 'pending' ORDER BY d.seq
                """)
        for d in drafts where try !Bool.exists(db, "SELECT 1 FROM outbox WHERE record_kind = 'draft' AND record_id = ?", [d["rev"]]) {
            out.append(SyncCandidate(kind: .draft, draftID: d["id"], recordID: d["rev"]))
        }
        return out
    }

    /// Drops unsent older revisions of a draft: the newest revision carries the whole draft.
    public func dropUnsentDraftRevisions(draftID: String, keeping recordID: String) throws {
        try pool.write { db in
            let condition = "record_kind = 'draft' AND state = 'pending' AND substr(record_id, 1, length(?1)) = ?1 AND record_id != ?2"
            try HashChain.pruneOutbox(db, where: condition, arguments: [draftID + "_r", recordID])
            try db.execute(sql: "DELETE FROM outbox WHERE \(condition)", arguments: [draftID + "_r", recordID])
        }
    }

    /// Marks every pending record of these kinds not-to-send (consent off). They stay on the device.
    @discardableResult
    public func withholdOutbox(kinds: [OutboxKind]) throws -> Int { try setDoNotSend(true, kinds: kinds) }

    /// The rider's explicit choice to send withheld records after all.
    @discardableResult
    public func releaseWithheld(kinds: [OutboxKind]) throws -> Int { try setDoNotSend(false, kinds: kinds) }

    /// Flips `do_not_send` of the pending records of these kinds; returns how many changed.
    private func setDoNotSend(_ withheld: Bool, kinds: [OutboxKind]) throws -> Int {
        guard !kinds.isEmpty else { return 0 }
        return try pool.write { db in
            // Kinds are enum raw values (letters only), never rider input.
            let list = kinds.map { "'\($0.rawValue)'" }.joined(separator: ",")
            try db.execute(
                sql: "UPDATE outbox SET do_not_send = ? WHERE state = 'pending' AND do_not_send = ? AND record_kind IN (\(list))",
                arguments: [withheld ? 1 : 0, withheld ? 0 : 1])
            return db.changesCount
        }
    }

    /// Whole-pass events (hub unreachable, 401) that belong to no single record.
    public func appendSyncLog(outcome: String, detail: String, utcNanoseconds: Int64?) throws {
        try pool.write { db in
            try db.execute(
                sql: "INSERT INTO sync_log (utc_ns, outcome, detail) VALUES (?, ?, ?)", arguments: [utcNanoseconds, outcome, detail])
        }
    }

    /// Where the rider's consent and privacy settings live (`meta`), so that the
    /// CLI and a running daemon see the same switches at once.
    public static let consentKey = "sync.consent"
    public static let privacyKey = "sync.privacy"

    /// The rider's consent: only the rider's own command (`sync consent`, the review
    /// page) changes it. What may leave the device is `effectiveConsent()`.
    public func consent() async throws -> Consent { try await pool.read(Self.consent) }

    static func consent(_ db: Database) throws -> Consent { try setting(db, Store.consentKey) ?? Consent() }

    /// The streams the configuration file forbids (`privacy.share_* = false`), as `run`
    /// last read them. Kept apart from the rider's consent so that the file never
    /// rewrites the rider's choice: remove the key and the choice stands again.
    public static let fileForbidsKey = "sync.file_forbids"

    /// `fileForbidsKey`'s streams; none when never written.
    public func fileForbids() throws -> Set<SyncStream> { try pool.read(Self.fileForbids) }

    private static func fileForbids(_ db: Database) throws -> Set<SyncStream> {
        Set(try setting(db, Store.fileForbidsKey) as [SyncStream]? ?? [])
    }

    /// Records what the configuration file forbids (`run` at start). A stream the file
    /// no longer forbids and the rider allows goes again, its held records included, as
    /// when the rider turns it on (`setConsent`).
    public func setFileForbids(_ streams: Set<SyncStream>) throws {
        let lifted = try fileForbids().subtracting(streams)
        try setSetting(Store.fileForbidsKey, streams.sorted { $0.rawValue < $1.rawValue })
        let rider = try pool.read(Self.consent)
        try releaseWithheld(kinds: OutboxKind.allCases.filter { lifted.contains($0.stream) && rider.allows($0.stream) })
    }

    /// What may leave the device now: the rider's consent, less what the file forbids.
    /// Sync, the outbox figures and the live position read this one.
    public func effectiveConsent() async throws -> Consent { try await pool.read(Self.effectiveConsent) }

    /// Both settings from one snapshot.
    private static func effectiveConsent(_ db: Database) throws -> Consent {
        var allowed = try consent(db)
        for stream in try fileForbids(db) { allowed.set(stream, false) }
        return allowed
    }

    /// A JSON setting from `meta`; nil when never set; `StoreError.unreadableSetting`
    /// when set but unreadable (callers fail closed). Read on a reader, off the caller's thread.
    public func setting<T: Decodable & Sendable>(_ key: String) async throws -> T? {
        try await pool.read { db in try Self.setting(db, key) }
    }

    private static func setting<T: Decodable>(_ db: Database, _ key: String) throws -> T? {
        guard let text = try metaValue(db, key) else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw StoreError.unreadableSetting(key: key, reason: "\(error)")
        }
    }

    /// Stores `value` as JSON under `key` in `meta` (read back with `setting(_:)`).
    /// - Throws: `EncodingError` when `value` cannot be encoded; a GRDB `DatabaseError` when it
    ///   cannot be written.
    public func setSetting<T: Encodable>(_ key: String, _ value: T) throws {
        try setMetaValue(key, String(decoding: try JSONEncoder().encode(value), as: UTF8.self))
    }

    /// The text stored under `key` in `meta`; nil when never set.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func metaValue(_ key: String) throws -> String? {
        try pool.read { db in try Self.metaValue(db, key) }
    }

    private static func metaValue(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    /// Stores `value` under `key` in `meta`, replacing what was there.
    /// - Throws: a GRDB `DatabaseError` when it cannot be written.
    public func setMetaValue(_ key: String, _ value: String) throws {
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// The hash the store chained for a confirmed draft's document, read off the caller's thread (sync).
    public func confirmedPayloadSHA256(draftID: String) async throws -> String? {
        try await pool.read { db in try Self.confirmedPayloadSHA256(db, draftID: draftID) }
    }

    private static func confirmedPayloadSHA256(_ db: Database, draftID: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT confirmed_payload FROM drafts WHERE id = ?", arguments: [draftID])
            .map { SHA256Hasher.hash(Array($0.utf8)).hexString }
    }

    /// Pending records split by what will happen to them: "withheld" are those
    /// held back (consent off now, or marked not-to-send), so that the figures
    /// say what sync will do, not what the last pass did.
    public func syncDiagnosis(logLines: Int = 20) throws -> SyncDiagnosis {
        // Unreadable consent sends nothing: everything pending counts as withheld.
        let allowed = (try? pool.read(Self.effectiveConsent)) ?? Consent()
        return try pool.read { db in try Self.syncDiagnosis(db, allowed: allowed, logLines: logLines) }
    }

    /// The outbox counts of `syncDiagnosis(logLines:)` without its log, off the caller's thread (the
    /// review page's totals: one rule with `diagnose`, `sync status` and `status`).
    public func outboxCounts() async throws -> SyncDiagnosis {
        let allowed = (try? await effectiveConsent()) ?? Consent()
        return try await pool.read { db in try Self.syncDiagnosis(db, allowed: allowed, logLines: 0) }
    }

    private static func syncDiagnosis(_ db: Database, allowed: Consent, logLines: Int) throws -> SyncDiagnosis {
        let blocked = OutboxKind.allCases.filter { !allowed.allows($0.stream) }.map { "'\($0.rawValue)'" }.joined(separator: ",")
        func counts(_ filter: String) throws -> [String: Int] {
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(
                    db, sql: "SELECT record_kind, COUNT(*) AS n FROM outbox WHERE \(filter) GROUP BY record_kind"
                )
                .map { ($0["record_kind"] as String, $0["n"] as Int) })
        }
        let quarantined = try Row.fetchAll(
            db,
            sql: """
                SELECT record_kind, record_id, quarantine_reason, attempts FROM outbox WHERE state = 'quarantined' ORDER BY seq
                """
        ).map {
            SyncDiagnosis.Quarantined(
                kind: $0["record_kind"], id: $0["record_id"], reason: $0["quarantine_reason"] ?? "", attempts: $0["attempts"])
        }
        let log = try Row.fetchAll(db, sql: "SELECT * FROM sync_log ORDER BY seq DESC LIMIT ?", arguments: [logLines]).map {
            SyncDiagnosis.LogLine(
                utcNanoseconds: $0["utc_ns"], kind: $0["record_kind"], id: $0["record_id"], outcome: $0["outcome"], detail: $0["detail"]
            )
        }
        var diagnosis = SyncDiagnosis(
            pending: try counts("state = 'pending' AND do_not_send = 0 AND record_kind NOT IN (\(blocked))"),
            withheld: try counts("state = 'pending' AND (do_not_send = 1 OR record_kind IN (\(blocked)))"),
            sent: try counts("state = 'sent'"), quarantined: quarantined, recentLog: log)
        try addManualPaths(db, allowed: allowed, to: &diagnosis)
        return diagnosis
    }

    /// The rider's named paths beside the outbox's records, as kind `manual_path` (the sync
    /// log's name for them): queued ones wait to send, or are held while trip sharing is off
    /// (they go with trips and drafts, docs/sync.md); a refused one is listed with the hub's
    /// code and sentence. So `sync status`, `diagnose`, `status` and the review page count
    /// what sync still has to send by one rule.
    private static func addManualPaths(_ db: Database, allowed: Consent, to d: inout SyncDiagnosis) throws {
        let kind = ManualPathRecord.syncKind
        for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) AS n FROM manual_paths GROUP BY state") {
            let n: Int = row["n"]
            switch ManualPathState(rawValue: row["state"]) {
            case .queued where allowed.allows(.tripsAndDrafts): d.pending[kind, default: 0] += n
            case .queued: d.withheld[kind, default: 0] += n
            case .sent: d.sent[kind, default: 0] += n
            case .refused, nil: break
            }
        }
        d.quarantined += try Row.fetchAll(
            db, sql: "SELECT id, refusal_code, refusal_message, attempts FROM manual_paths WHERE state = 'refused' ORDER BY seq"
        ).map { row in
            // Typed apart: Swift 6.2 (the package's compiler) type-checks generic subscripts
            // inside an interpolation slowly.
            let code: String = row["refusal_code"] ?? "refused", message: String = row["refusal_message"] ?? ""
            return SyncDiagnosis.Quarantined(kind: kind, id: row["id"], reason: "\(code): \(message)", attempts: row["attempts"])
        }
    }
}

private extension Bool {
    static func exists(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> Bool {
        try Bool.fetchOne(db, sql: sql, arguments: arguments) != nil
    }
}
