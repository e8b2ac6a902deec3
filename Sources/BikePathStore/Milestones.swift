import GRDB

/// A lifetime distance threshold the rider has passed (the BruMap idea).
public struct Milestone: Sendable, Equatable, Codable {
    public var thresholdMeters: Int64
    public var tripID: String
    public var totalMeters: Double
}

enum Milestones {
    /// Called in the transaction that closes a trip. Each threshold is a row
    /// keyed by its distance, so it fires once — a restart or a replay that
    /// closes the same trip again finds the row and fires nothing.
    static func check(_ db: Database, tripID: String, steps: [Double]) throws -> [Milestone] {
        let total = try Double.fetchOne(db, sql: "SELECT COALESCE(SUM(distance_m), 0) FROM trips WHERE state = 'closed'") ?? 0
        var fired: [Milestone] = []
        for step in steps where step > 0 {
            var threshold = step
            while threshold <= total {
                let key = Int64(threshold.rounded())
                try db.execute(
                    sql: "INSERT OR IGNORE INTO milestones (threshold_m, trip_id, total_m) VALUES (?, ?, ?)",
                    arguments: [key, tripID, total])
                if db.changesCount > 0 { fired.append(Milestone(thresholdMeters: key, tripID: tripID, totalMeters: total)) }
                threshold += step
            }
        }
        return fired.sorted { $0.thresholdMeters < $1.thresholdMeters }
    }
}

extension Store {
    /// The milestones reached, smallest threshold first.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func milestones() throws -> [Milestone] {
        try pool.read(Self.milestones)
    }

    static func milestones(_ db: Database) throws -> [Milestone] {
        try Row.fetchAll(db, sql: "SELECT * FROM milestones ORDER BY threshold_m").map {
            Milestone(thresholdMeters: $0["threshold_m"], tripID: $0["trip_id"], totalMeters: $0["total_m"])
        }
    }
}
