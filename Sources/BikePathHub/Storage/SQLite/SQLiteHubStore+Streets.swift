import BikePathCore
import Foundation
import GRDB

/// OpenStreetMap's streets on SQLite (table of migration v13-streets).
extension SQLiteHubStore {
    public func replaceStreets(_ edges: [StreetEdge]) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM streets")
            let insert = try db.cachedStatement(
                sql: "INSERT INTO streets (\(StreetEdge.storedColumns), south, west, north, east) VALUES (\(Self.placeholders))")
            for e in edges {
                let box = e.bounds
                try insert.execute(arguments: [
                    e.key.way, e.key.from, e.key.to, e.pointsText, e.lengthMeters, e.highway, e.name, e.surface, e.smoothness,
                    e.cyclewayLeft, e.cyclewayRight, e.bicycle, e.direction.rawValue, box.south, box.west, box.north, box.east,
                ])
            }
        }
    }

    private static let placeholders = Array(repeating: "?", count: 17).joined(separator: ", ")

    public func streets(in box: BoundingBox, limit: Int?) async throws -> [StreetEdge] {
        try await pool.read { db in
            try Array(
                Row.fetchCursor(
                    db,
                    sql: """
                        SELECT \(StreetEdge.storedColumns) FROM streets WHERE west <= ? AND east >= ? AND south <= ? AND north >= ?
                        ORDER BY way_id, from_node, to_node LIMIT ?
                        """, arguments: [box.east, box.west, box.north, box.south, limit ?? -1]
                ).map { row in
                    try StreetEdge(
                        stored: row[0], row[1], row[2], points: row[3], length: row[4], highway: row[5], name: row[6], surface: row[7],
                        smoothness: row[8], cyclewayLeft: row[9], cyclewayRight: row[10], bicycle: row[11], direction: row[12])
                })
        }
    }

    public func streetCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM streets") ?? 0 }
    }
}
