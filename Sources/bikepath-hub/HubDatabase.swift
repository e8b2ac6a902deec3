import BikePathAPI
import Crypto
import Foundation
import GRDB

/// The hub's SQLite file: devices and their token hashes, records keyed by
/// (device, kind, device-made id), and each device's latest live position.
/// Tokens are stored only as SHA-256 hashes (token rules: DeviceTokens.swift).
final class HubDatabase: Sendable {
    let pool: DatabasePool

    /// Opens (or creates, mode 0600: it holds every device's records) the hub's database.
    init(path: String) throws {
        try PrivateFile.create(path: path)
        var config = Configuration()
        config.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: config)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE devices (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    token_sha256 TEXT NOT NULL UNIQUE,
                    revoked INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE records (
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    kind TEXT NOT NULL CHECK (kind IN ('sos', 'confirmation', 'draft', 'trip')),
                    id TEXT NOT NULL,
                    sha256 TEXT NOT NULL,       -- of the canonical body; equality means "identical"
                    body BLOB NOT NULL,         -- canonical JSON
                    received_utc TEXT NOT NULL,
                    PRIMARY KEY (device_id, kind, id)
                ) WITHOUT ROWID;
                -- A draft is published only through its confirmation record.
                CREATE VIEW published AS SELECT device_id, id AS draft_id, received_utc FROM records WHERE kind = 'confirmation';
                CREATE TABLE live_positions (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    body BLOB NOT NULL,
                    updates INTEGER NOT NULL DEFAULT 1,
                    received_utc TEXT NOT NULL
                );
                """)
        }
        // Who manages a device's token: the tokens file ('file') or `bikepath-hub tokens`
        // ('command'); docs/sync.md, "Device tokens". Devices from before are taken as 'file'.
        migrator.registerMigration("v2-token-manager") { db in
            try db.execute(sql: "ALTER TABLE devices ADD COLUMN managed_by TEXT NOT NULL DEFAULT 'file' CHECK (managed_by IN ('file', 'command'))")
        }
        try migrator.migrate(pool)
    }

    static func hash(_ token: String) -> String { hex(SHA256.hash(data: Data(token.utf8))) }
    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }

    /// Stores each record unless held: identical → duplicate, different → conflict.
    /// All in one transaction, so a batch is committed whole or not at all.
    func put(device: String, records: [(RecordKind, String, Data)]) async throws -> [RecordResult] {
        let now = ISO8601DateFormatter().string(from: Date())
        return try await pool.write { db in
            try records.map { kind, id, body in
                let sha = Self.hex(SHA256.hash(data: body))
                if let stored = try String.fetchOne(db, sql: "SELECT sha256 FROM records WHERE device_id = ? AND kind = ? AND id = ?",
                                                    arguments: [device, kind.rawValue, id]) {
                    if stored == sha { return RecordResult(kind: kind, id: id, status: 200, outcome: .duplicate) }
                    return RecordResult(kind: kind, id: id, status: 409, outcome: .conflict,
                                        error: "a different \(kind.rawValue) with this id is already stored; nothing was changed",
                                        storedSha256: stored, receivedSha256: sha)
                }
                try db.execute(sql: "INSERT INTO records (device_id, kind, id, sha256, body, received_utc) VALUES (?, ?, ?, ?, ?, ?)",
                               arguments: [device, kind.rawValue, id, sha, body, now])
                return RecordResult(kind: kind, id: id, status: 201, outcome: .created)
            }
        }
    }

    func putLivePosition(device: String, body: Data) async throws {
        let now = ISO8601DateFormatter().string(from: Date())
        try await pool.write { db in
            try db.execute(sql: """
                INSERT INTO live_positions (device_id, body, received_utc) VALUES (?, ?, ?)
                ON CONFLICT(device_id) DO UPDATE SET body = excluded.body, updates = updates + 1, received_utc = excluded.received_utc
                """, arguments: [device, body, now])
        }
    }
}
