import BikePathCore
import Foundation
import Logging
import PostgresNIO

/// Manual paths on PostgreSQL (tables of migration v16-manual-paths).
extension PostgresHubStore {
    public func manualPath(device: String, id: String) async throws -> StoredManualPath? {
        try await client.withConnection { conn in try await Self.manualPath(device: device, id: id, conn, logger: logger) }
    }

    /// The path's row first, `ON CONFLICT DO NOTHING`: a request for the same key in flight on
    /// another replica is waited for, and its path, committed, is then answered as held.
    public func storeManualPath(_ path: StoredManualPath, evidence: [StreetIncrement]) async throws -> StoredManualPath? {
        try await client.withTransaction(logger: logger) { conn in
            let inserted = try await conn.query(
                """
                INSERT INTO manual_paths (device_id, id, body_sha256, body, status, day)
                VALUES (\(path.device), \(path.id), \(path.bodySha256), \(String(decoding: path.body, as: UTF8.self)),
                        \(path.status.rawValue), \(path.day))
                ON CONFLICT (device_id, id) DO NOTHING RETURNING id
                """, logger: logger
            ).collect()
            guard !inserted.isEmpty else { return try await Self.manualPath(device: path.device, id: path.id, conn, logger: logger) }
            let p = path.pieces, keys = p.map(\.piece.key)
            try await conn.query(
                """
                INSERT INTO manual_path_pieces (device_id, id, seq, \(unescaped: StoredManualPath.pieceColumns))
                SELECT \(path.device), \(path.id), s, w, f, t, d, fm, tm, fr, NULLIF(n, ''), pt
                FROM unnest(\(PostgresNumbers(Array(p.indices)))::int[], \(PostgresNumbers(keys.map(\.way)))::bigint[],
                            \(PostgresNumbers(keys.map(\.from)))::bigint[], \(PostgresNumbers(keys.map(\.to)))::bigint[],
                            \(p.map(\.piece.way.rawValue))::text[], \(PostgresNumbers(p.map(\.piece.fromMeters)))::float8[],
                            \(PostgresNumbers(p.map(\.piece.toMeters)))::float8[], \(PostgresNumbers(p.map(\.piece.fraction)))::float8[],
                            \(p.map { $0.name ?? "" })::text[], \(p.map { StreetEdge.text($0.points) })::text[])
                    AS u(s, w, f, t, d, fm, tm, fr, n, pt)
                """, logger: logger)
            try await Self.add(evidence, conn, logger: logger)
            return nil
        }
    }

    private static func manualPath(device: String, id: String, _ conn: PostgresConnection, logger: Logger) async throws
        -> StoredManualPath?
    {
        var found: StoredManualPath?
        for try await (sha, body, status, day) in try await conn.query(
            "SELECT body_sha256, body, status, day FROM manual_paths WHERE device_id = \(device) AND id = \(id)", logger: logger
        ).decode((String, String, String, Int).self) {
            guard let rated = PathStatus(rawValue: status) else {
                throw StoredManualPath.CorruptRow(device: device, id: id, why: "status \(status)")
            }
            found = StoredManualPath(device: device, id: id, body: Data(body.utf8), bodySha256: sha, status: rated, day: day, pieces: [])
        }
        guard var path = found else { return nil }
        let rows = try await conn.query(
            """
            SELECT \(unescaped: StoredManualPath.pieceColumns) FROM manual_path_pieces WHERE device_id = \(device) AND id = \(id)
            ORDER BY seq
            """, logger: logger)
        for try await row in rows {
            let c = row.makeRandomAccess()
            path.pieces.append(
                try path.piece(
                    c[0].decode(Int64.self), c[1].decode(Int64.self), c[2].decode(Int64.self), way: c[3].decode(String.self),
                    fromM: c[4].decode(Double.self), toM: c[5].decode(Double.self), fraction: c[6].decode(Double.self),
                    name: c[7].decode(String?.self), points: c[8].decode(String.self)))
        }
        return path
    }
}
