import Foundation
import GRDB

/// What the outbox holds, in sending priority (lower raw value first).
public enum OutboxKind: String, Sendable, Codable, CaseIterable {
    case sos, confirmation, draft, trip
    public var priority: Int {
        switch self {
        case .sos: 0
        case .confirmation: 1
        case .draft: 2
        case .trip: 3
        }
    }
}

public struct OutboxItem: Sendable, Equatable, Codable {
    public var seq: Int64
    public var kind: OutboxKind
    public var recordID: String
    public var payload: String
    public var attempts: Int
}

enum Outbox {
    /// Idempotent: the (kind, id) pair is unique, the device-made id is the sync key.
    static func enqueue(_ db: Database, kind: OutboxKind, id: String, payload: String) throws {
        try db.execute(sql: """
            INSERT OR IGNORE INTO outbox (record_kind, record_id, payload, priority) VALUES (?, ?, ?, ?)
            """, arguments: [kind.rawValue, id, payload, kind.priority])
    }
}

extension Store {
    /// What sync should send next: pending, not flagged do-not-send, SOS first, then oldest.
    public func outboxPending(limit: Int = 100) throws -> [OutboxItem] {
        try queue.read { db in
            try Row.fetchAll(db, sql: """
                SELECT seq, record_kind, record_id, payload, attempts FROM outbox
                WHERE state = 'pending' AND do_not_send = 0 ORDER BY priority, seq LIMIT ?
                """, arguments: [limit]).map {
                OutboxItem(seq: $0["seq"], kind: OutboxKind(rawValue: $0["record_kind"]) ?? .trip, recordID: $0["record_id"],
                           payload: $0["payload"], attempts: $0["attempts"])
            }
        }
    }

    /// Records one sync attempt's outcome in the outbox and the sync log.
    public func recordSyncAttempt(seq: Int64, outcome: SyncOutcome, utcNanoseconds: Int64?) throws {
        try queue.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT record_kind, record_id FROM outbox WHERE seq = ?", arguments: [seq]) else { return }
            switch outcome {
            case .sent:
                try db.execute(sql: "UPDATE outbox SET state = 'sent', attempts = attempts + 1 WHERE seq = ?", arguments: [seq])
            case .failed:
                try db.execute(sql: "UPDATE outbox SET attempts = attempts + 1 WHERE seq = ?", arguments: [seq])
            case .quarantined(let reason):
                try db.execute(sql: "UPDATE outbox SET state = 'quarantined', attempts = attempts + 1, quarantine_reason = ? WHERE seq = ?",
                               arguments: [reason, seq])
            }
            try db.execute(sql: "INSERT INTO sync_log (utc_ns, record_kind, record_id, outcome, detail) VALUES (?, ?, ?, ?, ?)",
                           arguments: [utcNanoseconds, row["record_kind"], row["record_id"], outcome.name, outcome.detail])
        }
    }
}

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
