import BikePathAPI
import BikePathCore
import Foundation
import GRDB

/// Where a path the rider entered stands (`manual_paths.state`, docs/storage.md).
public enum ManualPathState: String, Sendable, Codable, CaseIterable, RiderWord {
    /// On the device; sync sends it at its next pass, and again after a network error or 5xx.
    case queued
    /// The hub made it and counts it as the rider's rating; it has no delete.
    case sent
    /// The hub cannot make it (422) or refused its body (400, 409): never retried.
    case refused

    public var word: String {
        switch self {
        case .queued: PublishingState.pending.word
        case .sent: PublishingState.sent.word
        case .refused: PublishingState.quarantined.word
        }
    }
    public static var vocabularyName: String { "path state" }
}

/// A path as the device holds it: what the rider entered, and what became of it.
public struct ManualPathRecord: Sendable, Equatable {
    /// Its kind in the sync log and beside the outbox's records (`SyncDiagnosis`).
    public static let syncKind = "manual_path"

    public var id: String
    public var path: ManualPathUpload
    public var state: ManualPathState
    public var createdUTCNanoseconds: Int64?
    /// Tries so far, failed or not.
    public var attempts: Int
    /// Why the last try is to be retried (unreachable, 5xx); nil once sent or refused.
    public var lastFailure: String?
    /// The hub's length of the path it made, in metres (sent).
    public var lengthMeters: Double?
    /// The hub's code and sentence (refused).
    public var refusalCode: String?
    public var refusalMessage: String?
}

/// What the hub answered one path: the store's record of a try.
public enum ManualPathOutcome: Sendable, Equatable {
    /// Made (201) or already held with the same body (200): its length in metres.
    case sent(lengthMeters: Double)
    /// Refused for good, with the hub's code and sentence.
    case refused(code: String, message: String)
    /// To be retried (no answer, 5xx, 429, an answer not the hub's), and why.
    case failed(String)
}

extension Store {
    /// Keeps a path the rider entered for sync to send: `id` is the hub's key, so a resend after
    /// a lost answer is the same request. Checked first as the hub would check its fields and
    /// street count (`Validation.problemsBeforeSending`): a path the hub must refuse is not queued.
    /// - Throws: `StoreError.invalidManualPath` with the problems; the database's error otherwise.
    @discardableResult
    public func addManualPath(_ path: ManualPathUpload, id: String = UUID().uuidString, utcNanoseconds: Int64?) throws
        -> ManualPathRecord
    {
        let problems = Validation.problemsBeforeSending(path)
        guard problems.isEmpty else { throw StoreError.invalidManualPath(problems) }
        let body = String(decoding: try WireJSON.encode(path), as: UTF8.self)
        try pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO manual_paths (id, seq, created_utc_ns, body)
                    VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM manual_paths), ?, ?)
                    """, arguments: [id, utcNanoseconds, body])
        }
        return ManualPathRecord(id: id, path: path, state: .queued, createdUTCNanoseconds: utcNanoseconds, attempts: 0)
    }

    /// Every path, oldest first.
    public func manualPaths() async throws -> [ManualPathRecord] {
        try await pool.read { [path] db in try Self.manualPaths(db, where: "", store: path) }
    }

    /// The paths sync sends next, oldest first.
    public func queuedManualPaths() async throws -> [ManualPathRecord] {
        try await pool.read { [path] db in try Self.manualPaths(db, where: "WHERE state = 'queued'", store: path) }
    }

    /// The id `reference` names: the id (any case) or a unique prefix of it.
    /// - Throws: `StoreError.noSuchManualPath` or `.ambiguousReference`.
    public func resolveManualPathID(_ reference: String) async throws -> String {
        let ids = try await pool.read { db in try String.fetchAll(db, sql: "SELECT id FROM manual_paths ORDER BY seq") }
        let ref = reference.trimmingCharacters(in: .whitespaces)
        return try Self.unique(ref, among: ids, original: reference) { StoreError.noSuchManualPath($0) }
    }

    /// Removes a path the hub has not made: queued (nothing left the device) or refused. A sent
    /// path stays: the hub has no delete, and its rating is in sums it cannot take back out.
    /// - Throws: `StoreError.noSuchManualPath`, or `.manualPathSent` for a sent one.
    @discardableResult
    public func deleteManualPath(_ id: String) throws -> ManualPathRecord {
        try pool.write { [path] db in
            guard let held = try Self.manualPaths(db, where: "WHERE id = ?", [id], store: path).first else {
                throw StoreError.noSuchManualPath(id)
            }
            guard held.state != .sent else { throw StoreError.manualPathSent(id) }
            try db.execute(sql: "DELETE FROM manual_paths WHERE id = ?", arguments: [id])
            return held
        }
    }

    /// Records one try's outcome, and a line in the sync log. A path no longer queued (deleted
    /// meanwhile) is left as it is.
    public func recordManualPathAttempt(_ id: String, _ outcome: ManualPathOutcome, utcNanoseconds: Int64?) throws {
        try pool.write { db in
            let (set, arguments): (String, StatementArguments) =
                switch outcome {
                case .sent(let length): ("state = 'sent', length_m = ?, last_failure = NULL", [length])
                case .refused(let code, let message):
                    ("state = 'refused', refusal_code = ?, refusal_message = ?, last_failure = NULL", [code, message])
                case .failed(let why): ("last_failure = ?", [why])
                }
            try db.execute(
                sql: "UPDATE manual_paths SET \(set), attempts = attempts + 1 WHERE id = ? AND state = 'queued'",
                arguments: arguments + [id])
            guard db.changesCount > 0 else { return }
            let (name, detail): (String, String?) =
                switch outcome {
                case .sent(let length): ("sent", "\(length) m")
                case .refused(let code, let message): ("refused", "\(code): \(message)")
                case .failed(let why): ("failed", why)
                }
            try db.execute(
                sql: "INSERT INTO sync_log (utc_ns, record_kind, record_id, outcome, detail) VALUES (?, ?, ?, ?, ?)",
                arguments: [utcNanoseconds, ManualPathRecord.syncKind, id, name, detail])
        }
    }

    /// The rows `filter` selects; a row this build cannot read is the store's damage (`store` names it).
    private static func manualPaths(_ db: Database, where filter: String, _ arguments: StatementArguments = [], store: String) throws
        -> [ManualPathRecord]
    {
        try Row.fetchAll(db, sql: "SELECT * FROM manual_paths \(filter) ORDER BY seq", arguments: arguments).map { row in
            let body: String = row["body"]
            let id: String = row["id"]
            guard let path = try? WireKeys.decode(ManualPathUpload.self, from: Data(body.utf8)),
                let state = ManualPathState(rawValue: row["state"])
            else { throw StoreError.damaged(store, reason: "manual path \(id) cannot be read") }
            return ManualPathRecord(
                id: id, path: path, state: state, createdUTCNanoseconds: row["created_utc_ns"], attempts: row["attempts"],
                lastFailure: row["last_failure"], lengthMeters: row["length_m"], refusalCode: row["refusal_code"],
                refusalMessage: row["refusal_message"])
        }
    }
}
