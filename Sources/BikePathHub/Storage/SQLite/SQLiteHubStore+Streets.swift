import BikePathCore
import Foundation
import GRDB

/// OpenStreetMap's streets on SQLite (table of migration v13-streets).
extension SQLiteHubStore {
    public func replaceStreets(_ edges: [StreetEdge]) async throws -> StreetReplacement {
        try await pool.write { db in
            let (rated, keys) = try Self.streetsWithEvidence(db)
            let transfer = StreetEvidenceTransfer.plan(
                old: rated, oldKeys: keys, evidence: try Self.evidenceOfDroppedStreets(db, keeping: edges), new: edges)
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
            try Self.add(transfer.increments, db)
            for key in transfer.moved {
                for table in ["street_evidence", "street_evidence_riders"] {
                    try db.execute(
                        sql: "DELETE FROM \(table) WHERE way_id = ? AND from_node = ? AND to_node = ?",
                        arguments: [key.way, key.from, key.to])
                }
            }
            return StreetReplacement(movedEvidence: transfer.moved.count, receivedEvidence: Set(transfer.increments.map(\.key)).count)
        }
    }

    /// The stored streets any evidence is on, and every stored street's key.
    private static func streetsWithEvidence(_ db: Database) throws -> (edges: [StreetEdge], keys: Set<StreetEdge.Key>) {
        let edges = try Row.fetchAll(
            db,
            sql: """
                SELECT \(StreetEdge.storedColumns) FROM streets s WHERE EXISTS (SELECT 1 FROM street_evidence e
                    WHERE e.way_id = s.way_id AND e.from_node = s.from_node AND e.to_node = s.to_node)
                """
        ).map(edge)
        var keys = Set<StreetEdge.Key>()
        let rows = try Row.fetchCursor(db, sql: "SELECT way_id, from_node, to_node FROM streets")
        while let row = try rows.next() { keys.insert(StreetEdge.Key(way: row[0], from: row[1], to: row[2])) }
        return (edges, keys)
    }

    /// The evidence of each stored street that `edges` drop, per way, with the street's riders.
    private static func evidenceOfDroppedStreets(_ db: Database, keeping edges: [StreetEdge]) throws
        -> [StreetEdge.Key: StreetEvidenceTransfer.Evidence]
    {
        let kept = Set(edges.map(\.key))
        var out: [StreetEdge.Key: StreetEvidenceTransfer.Evidence] = [:]
        let rows = try Row.fetchCursor(
            db,
            sql: """
                SELECT e.way_id, e.from_node, e.to_node, e.way, e.trips, e.last_day, e.rated_optimal, e.rated_medium, e.rated_sufficient,
                    e.rated_requires_maintenance, e.roughness_sum, e.roughness_trips
                FROM street_evidence e JOIN streets s ON s.way_id = e.way_id AND s.from_node = e.from_node AND s.to_node = e.to_node
                """)
        while let row = try rows.next() {
            let key = StreetEdge.Key(way: row[0], from: row[1], to: row[2])
            guard !kept.contains(key), let way = StreetMatch.Way(rawValue: row[3]) else { continue }
            var e = StreetEvidence()
            (e.rides.trips, e.rides.lastDay, e.rides.ratings) = (row[4], row[5], [row[6], row[7], row[8], row[9]])
            (e.roughnessSum, e.roughnessTrips) = (row[10], row[11])
            out[key, default: [:]][way] = e
        }
        let riders = try Row.fetchCursor(db, sql: "SELECT way_id, from_node, to_node, device_id FROM street_evidence_riders")
        while let row = try riders.next() {
            let key = StreetEdge.Key(way: row[0], from: row[1], to: row[2])
            for way in out[key]?.keys.map({ $0 }) ?? [] { out[key]?[way]?.rides.devices.insert(row[3]) }
        }
        return out
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
                ).map(Self.edge))
        }
    }

    /// A street as `StreetEdge.storedColumns` read it.
    private static func edge(_ row: Row) throws -> StreetEdge {
        try StreetEdge(
            stored: row[0], row[1], row[2], points: row[3], length: row[4], highway: row[5], name: row[6], surface: row[7],
            smoothness: row[8], cyclewayLeft: row[9], cyclewayRight: row[10], bicycle: row[11], direction: row[12])
    }

    public func streetCount() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM streets") ?? 0 }
    }

    public func streetTallies(in box: BoundingBox) async throws -> [StreetEdge.Key: StreetTally] {
        try await pool.read { db in
            var out: [StreetEdge.Key: StreetTally] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(StreetTally.summedColumns) FROM street_evidence e
                    JOIN streets s ON s.way_id = e.way_id AND s.from_node = e.from_node AND s.to_node = e.to_node
                    WHERE s.west <= ? AND s.east >= ? AND s.south <= ? AND s.north >= ?
                    GROUP BY e.way_id, e.from_node, e.to_node
                    """, arguments: [box.east, box.west, box.north, box.south])
            while let row = try rows.next() {
                out[StreetEdge.Key(way: row[0], from: row[1], to: row[2])] = StreetTally(
                    trips: row[3], lastDay: row[4], ratings: [row[5], row[6], row[7], row[8]], roughnessSum: row[9],
                    roughnessTrips: row[10], riders: row[11])
            }
            return out
        }
    }

    public func strandedStreetEvidence() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: StreetTally.strandedCount) ?? 0 }
    }

    /// Adds `increments` to `street_evidence` and their riders to `street_evidence_riders`,
    /// in the caller's transaction (the network's commit).
    static func add(_ increments: [StreetIncrement], _ db: Database) throws {
        let evidence = try db.cachedStatement(
            sql: """
                INSERT INTO street_evidence VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (way_id, from_node, to_node, way) DO UPDATE SET trips = trips + excluded.trips,
                    last_day = CASE WHEN last_day IS NULL OR excluded.last_day > last_day THEN excluded.last_day ELSE last_day END,
                    rated_optimal = rated_optimal + excluded.rated_optimal, rated_medium = rated_medium + excluded.rated_medium,
                    rated_sufficient = rated_sufficient + excluded.rated_sufficient,
                    rated_requires_maintenance = rated_requires_maintenance + excluded.rated_requires_maintenance,
                    roughness_sum = roughness_sum + excluded.roughness_sum, roughness_trips = roughness_trips + excluded.roughness_trips
                """)
        let rider = try db.cachedStatement(sql: "INSERT OR IGNORE INTO street_evidence_riders VALUES (?, ?, ?, ?)")
        for i in increments {
            let e = i.evidence, k = i.key
            try evidence.execute(arguments: [
                k.way, k.from, k.to, i.way.rawValue, e.rides.trips, e.rides.lastDay, e.rides.ratings[0], e.rides.ratings[1],
                e.rides.ratings[2], e.rides.ratings[3], e.roughnessSum, e.roughnessTrips,
            ])
            for device in e.rides.devices.sorted() { try rider.execute(arguments: [k.way, k.from, k.to, device]) }
        }
    }
}
