import Foundation
import GRDB

/// What applying the tokens file changed, for the hub's log (device ids only, never tokens).
struct TokenFileReport: Equatable {
    var added: [String] = []
    var replaced: [String] = []
    var revoked: [String] = []
    /// Devices that left the file: revoked, since removing a line must take access away.
    var revokedAbsent: [String] = []
    /// Revoked before and listed in the file: they stay revoked.
    var keptRevoked: [String] = []
    /// Managed with `bikepath-hub tokens`: their line in the file changes nothing.
    var ignoredCommandManaged: [String] = []
    /// Managed with `bikepath-hub tokens`, absent from the file, still allowed.
    var commandManaged: [String] = []
}

/// Device tokens in the hub's database. The rules (docs/sync.md, "Device tokens"):
/// the database is the authority and a revocation is permanent for that device
/// until `bikepath-hub tokens --token-file` issues it a new token; the tokens file
/// can add devices, change the tokens of devices it manages, and revoke, but never
/// restore access; a device it manages that leaves the file is revoked.
extension HubDatabase {
    enum Auth: Equatable { case device(String), unknown, revoked }

    func authenticate(token: String) async throws -> Auth {
        let h = Self.hash(token)
        return try await pool.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT device_id, revoked FROM devices WHERE token_sha256 = ?", arguments: [h]) else {
                return .unknown
            }
            return (row["revoked"] as Int) != 0 ? .revoked : .device(row["device_id"])
        }
    }

    /// `bikepath-hub tokens --token-file`: a new token, which lifts a revocation;
    /// from now on the device is managed with the command, not the tokens file.
    func issueToken(device: String, token: String) throws {
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (?, ?, 0, 'command')
                ON CONFLICT(device_id) DO UPDATE SET token_sha256 = excluded.token_sha256, revoked = 0, managed_by = 'command'
                """, arguments: [device, Self.hash(token)])
        }
    }

    @discardableResult
    func revoke(device: String) throws -> Bool {
        try pool.write { db in
            try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE device_id = ?", arguments: [device])
            return db.changesCount > 0
        }
    }

    /// Applies the tokens file in one transaction.
    func apply(tokenFile entries: [TokenFileEntry]) throws -> TokenFileReport {
        try pool.write { db in
            var report = TokenFileReport()
            for e in entries {
                let row = try Row.fetchOne(db, sql: "SELECT token_sha256, revoked, managed_by FROM devices WHERE device_id = ?", arguments: [e.device])
                guard let row else {
                    try db.execute(sql: "INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (?, ?, ?, 'file')",
                                   arguments: [e.device, e.tokenSHA256, e.revoked ? 1 : 0])
                    if e.revoked { report.revoked.append(e.device) } else { report.added.append(e.device) }
                    continue
                }
                let wasRevoked = (row["revoked"] as Int) != 0
                if e.revoked {
                    if !wasRevoked {
                        try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE device_id = ?", arguments: [e.device])
                        report.revoked.append(e.device)
                    }
                } else if wasRevoked {
                    report.keptRevoked.append(e.device)
                } else if (row["managed_by"] as String) == "command" {
                    if (row["token_sha256"] as String) != e.tokenSHA256 { report.ignoredCommandManaged.append(e.device) }
                } else if (row["token_sha256"] as String) != e.tokenSHA256 {
                    try db.execute(sql: "UPDATE devices SET token_sha256 = ? WHERE device_id = ?", arguments: [e.tokenSHA256, e.device])
                    report.replaced.append(e.device)
                }
            }
            let listed = Set(entries.map(\.device))
            for row in try Row.fetchAll(db, sql: "SELECT device_id, managed_by FROM devices WHERE revoked = 0 ORDER BY device_id") {
                let device: String = row["device_id"]
                guard !listed.contains(device) else { continue }
                if (row["managed_by"] as String) == "command" {
                    report.commandManaged.append(device)
                } else {
                    try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE device_id = ?", arguments: [device])
                    report.revokedAbsent.append(device)
                }
            }
            return report
        }
    }
}
