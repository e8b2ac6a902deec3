import BikePathCore
import Foundation
import GRDB

/// OpenStreetMap's streets on SQLite (table of migration v13-streets).
extension SQLiteHubStore {
    public func replaceStreets(_ edges: [StreetEdge]) async throws -> StreetReplacement {
        try await pool.write { db in
            let transfer = try Self.transferPlan(db, new: edges)
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

    /// Where the stored streets' evidence goes when `new` replaces them: the stored keys are
    /// read whole (three integers a street), the evidence and geometry only of those dropped.
    private static func transferPlan(_ db: Database, new: [StreetEdge]) throws -> StreetEvidenceTransfer.Plan {
        var keys = Set<StreetEdge.Key>()
        let rows = try Row.fetchCursor(db, sql: "SELECT way_id, from_node, to_node FROM streets")
        while let row = try rows.next() { keys.insert(StreetEdge.Key(way: row[0], from: row[1], to: row[2])) }
        let dropped = keys.subtracting(new.map(\.key))
        guard !dropped.isEmpty else { return StreetEvidenceTransfer.Plan(increments: [], moved: []) }
        try db.execute(sql: StreetEvidenceTransfer.createDropped)
        let insert = try db.makeStatement(sql: "INSERT INTO dropped_streets VALUES (?, ?, ?)")
        for key in dropped { try insert.execute(arguments: [key.way, key.from, key.to]) }
        let rated = try Row.fetchAll(db, sql: StreetEvidenceTransfer.droppedRatedStreets).map(edge)
        let evidence = try Row.fetchAll(db, sql: StreetEvidenceTransfer.droppedEvidence).map { row in
            StreetEvidenceTransfer.StoredEvidence(
                key: StreetEdge.Key(way: row[0], from: row[1], to: row[2]), way: row[3], trips: row[4], lastDay: row[5],
                ratings: [row[6], row[7], row[8], row[9]], roughnessSum: row[10], roughnessTrips: row[11])
        }
        let riders = try Row.fetchAll(db, sql: StreetEvidenceTransfer.droppedRiders).map { row in
            (key: StreetEdge.Key(way: row[0], from: row[1], to: row[2]), device: row[3] as String)
        }
        try db.execute(sql: StreetEvidenceTransfer.dropDropped)
        return StreetEvidenceTransfer.plan(
            old: rated, oldKeys: keys, evidence: StreetEvidenceTransfer.evidence(evidence, riders: riders), new: new)
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
