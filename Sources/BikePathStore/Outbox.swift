import BikePathCore
import Foundation
import GRDB

/// What the outbox holds; sent in `priority` order (SOS first).
public enum OutboxKind: String, Sendable, Codable, CaseIterable {
    case sos, confirmation, draft, trip
    /// The consent switch a record of this kind needs.
    public var stream: SyncStream { self == .sos ? .sos : .tripsAndDrafts }

    public var priority: Int {
        switch self {
        case .sos: 0
        case .confirmation: 1
        case .draft: 2
        case .trip: 3
        }
    }
}

/// One queued record: its outbox sequence number, kind, id, JSON payload and send attempts so far.
public struct OutboxItem: Sendable, Equatable, Codable {
    public var seq: Int64
    public var kind: OutboxKind
    public var recordID: String
    public var payload: String
    public var attempts: Int
}

enum Outbox {
    /// Idempotent: the (kind, id) pair is unique, the device-made id is the sync key.
    /// A new record is linked into the hash chain with the exact payload to send.
    /// Returns true when it was new.
    @discardableResult
    static func enqueue(_ db: Database, kind: OutboxKind, id: String, payload: String) throws -> Bool {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO outbox (record_kind, record_id, payload, priority) VALUES (?, ?, ?, ?)
                """, arguments: [kind.rawValue, id, payload, kind.priority])
        guard db.changesCount > 0 else { return false }
        try HashChain.linkOutbox(db, kind: kind.rawValue, id: id)
        return true
    }
}

extension Store {
    /// What sync should send next: pending, not flagged do-not-send, SOS first, then oldest.
    /// Read on a reader, off the caller's thread.
    public func outboxPending(limit: Int = 100) async throws -> [OutboxItem] {
        try await pool.read { db in try Self.outboxPending(db, limit: limit) }
    }

    private static func outboxPending(_ db: Database, limit: Int) throws -> [OutboxItem] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT seq, record_kind, record_id, payload, attempts FROM outbox
                WHERE state = 'pending' AND do_not_send = 0 ORDER BY priority, seq LIMIT ?
                """, arguments: [limit]
        ).map {
            OutboxItem(
                seq: $0["seq"], kind: OutboxKind(rawValue: $0["record_kind"]) ?? .trip, recordID: $0["record_id"],
                payload: $0["payload"], attempts: $0["attempts"])
        }
    }

    /// The rider (or an operator) holds a record back: sync skips it until cleared.
    public func setDoNotSend(kind: OutboxKind, recordID: String, _ hold: Bool) throws {
        try pool.write { db in
            try db.execute(
                sql: "UPDATE outbox SET do_not_send = ? WHERE record_kind = ? AND record_id = ?",
                arguments: [hold, kind.rawValue, recordID])
        }
    }

    /// Puts quarantined records back in the queue (`bikepathd sync requeue`): the
    /// one(s) with `recordID` (a confirmation and its draft share the draft's id),
    /// or all of them when it is nil. Returns how many were released; a wrong id
    /// is `StoreError.noSuchOutboxRecord` or `.notQuarantined`.
    @discardableResult
    public func requeueQuarantined(recordID: String?, utcNanoseconds: Int64?) throws -> Int {
        try pool.write { db in
            if let recordID {
                let states = try String.fetchAll(db, sql: "SELECT state FROM outbox WHERE record_id = ?", arguments: [recordID])
                guard !states.isEmpty else { throw StoreError.noSuchOutboxRecord(recordID) }
                guard states.contains("quarantined") else { throw StoreError.notQuarantined(recordID, state: states[0]) }
            }
            let filter = recordID == nil ? "" : " AND record_id = ?"
            let arguments: StatementArguments = recordID.map { [$0] } ?? []
            let rows = try Row.fetchAll(
                db, sql: "SELECT record_kind, record_id FROM outbox WHERE state = 'quarantined'" + filter,
                arguments: arguments)
            try db.execute(
                sql: """
                    UPDATE outbox SET state = 'pending', attempts = 0, quarantine_reason = NULL WHERE state = 'quarantined'
                    """ + filter, arguments: arguments)
            for row in rows {
                try db.execute(
                    sql: "INSERT INTO sync_log (utc_ns, record_kind, record_id, outcome, detail) VALUES (?, ?, ?, 'requeued', NULL)",
                    arguments: [utcNanoseconds, row["record_kind"], row["record_id"]])
            }
            return rows.count
        }
    }

    /// The sync log, newest first.
    public func syncLog(limit: Int = 100) throws -> [SyncLogEntry] {
        try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM sync_log ORDER BY seq DESC LIMIT ?", arguments: [limit]).map {
                SyncLogEntry(
                    utcNanoseconds: $0["utc_ns"], recordKind: $0["record_kind"], recordID: $0["record_id"],
                    outcome: $0["outcome"], detail: $0["detail"])
            }
        }
    }

    /// Records one sync attempt's outcome in the outbox and the sync log.
    public func recordSyncAttempt(seq: Int64, outcome: SyncOutcome, utcNanoseconds: Int64?) throws {
        try pool.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT record_kind, record_id FROM outbox WHERE seq = ?", arguments: [seq]) else {
                return
            }
            switch outcome {
            case .sent:
                try db.execute(sql: "UPDATE outbox SET state = 'sent', attempts = attempts + 1 WHERE seq = ?", arguments: [seq])
            case .failed:
                try db.execute(sql: "UPDATE outbox SET attempts = attempts + 1 WHERE seq = ?", arguments: [seq])
            case .quarantined(let reason):
                try db.execute(
                    sql: "UPDATE outbox SET state = 'quarantined', attempts = attempts + 1, quarantine_reason = ? WHERE seq = ?",
                    arguments: [reason, seq])
            }
            try db.execute(
                sql: "INSERT INTO sync_log (utc_ns, record_kind, record_id, outcome, detail) VALUES (?, ?, ?, ?, ?)",
                arguments: [utcNanoseconds, row["record_kind"], row["record_id"], outcome.name, outcome.detail])
        }
    }
}

/// What one send attempt did: sent, failed (retried later, with why), or quarantined (never
/// retried, with why).
public enum SyncOutcome: Sendable, Equatable {
    case sent
    case failed(String)
    case quarantined(String)
    var name: String {
        switch self {
        case .sent: "sent"
        case .failed: "failed"
        case .quarantined: "quarantined"
        }
    }
    var detail: String? {
        switch self {
        case .sent: nil
        case .failed(let d), .quarantined(let d): d
        }
    }
}

/// One line of the sync log: when (UTC ns), which record, the outcome and its detail.
public struct SyncLogEntry: Sendable, Equatable, Codable {
    public var utcNanoseconds: Int64?
    public var recordKind: String?
    public var recordID: String?
    public var outcome: String
    public var detail: String?
}
