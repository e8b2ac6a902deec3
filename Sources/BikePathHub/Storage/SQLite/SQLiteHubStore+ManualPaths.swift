import BikePathCore
import Foundation
import GRDB

/// Manual paths on SQLite (tables of migration v16-manual-paths).
extension SQLiteHubStore {
    public func manualPath(device: String, id: String) async throws -> StoredManualPath? {
        try await pool.read { db in try Self.manualPath(device: device, id: id, db) }
    }

    public func storeManualPath(_ path: StoredManualPath, evidence: [StreetIncrement]) async throws -> StoredManualPath? {
        try await pool.write { db in
            if let held = try Self.manualPath(device: path.device, id: path.id, db) { return held }
            try db.execute(
                sql: "INSERT INTO manual_paths (device_id, id, body_sha256, body, status, day) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    path.device, path.id, path.bodySha256, String(decoding: path.body, as: UTF8.self), path.status.rawValue, path.day,
                ])
            let piece = try db.cachedStatement(
                sql:
                    "INSERT INTO manual_path_pieces (device_id, id, seq, \(StoredManualPath.pieceColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            )
            for (seq, p) in path.pieces.enumerated() {
                let k = p.piece.key
                try piece.execute(arguments: [
                    path.device, path.id, seq, k.way, k.from, k.to, p.piece.way.rawValue, p.piece.fromMeters, p.piece.toMeters,
                    p.piece.fraction, p.name, StreetEdge.text(p.points),
                ])
            }
            try Self.add(evidence, db)
            return nil
        }
    }

    private static func manualPath(device: String, id: String, _ db: Database) throws -> StoredManualPath? {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT body_sha256, body, status, day FROM manual_paths WHERE device_id = ? AND id = ?", arguments: [device, id])
        else { return nil }
        let status: String = row[2]
        guard let rated = PathStatus(rawValue: status) else {
            throw StoredManualPath.CorruptRow(device: device, id: id, why: "status \(status)")
        }
        let body: String = row[1]
        var path = StoredManualPath(
            device: device, id: id, body: Data(body.utf8), bodySha256: row[0], status: rated, day: row[3], pieces: [])
        let rows = try Row.fetchCursor(
            db, sql: "SELECT \(StoredManualPath.pieceColumns) FROM manual_path_pieces WHERE device_id = ? AND id = ? ORDER BY seq",
            arguments: [device, id])
        while let r = try rows.next() {
            path.pieces.append(
                try path.piece(r[0], r[1], r[2], way: r[3], fromM: r[4], toM: r[5], fraction: r[6], name: r[7], points: r[8]))
        }
        return path
    }
}
