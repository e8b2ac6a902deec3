import BikePathCore
import Foundation
import GRDB

/// What to do with a trip that a crash or power loss left open.
enum Recovery {
    /// Closes an open trip at its last committed track point, computing its
    /// totals from the stored points (the chain's own totals were lost with the
    /// process), and turns it into a draft like any other closed trip.
    static func closeAtLastPoint(_ db: Database, tripID: String, configuration: StoreConfiguration) throws {
        guard let trip = try Row.fetchOne(db, sql: "SELECT start_time_ns FROM trips WHERE id = ? AND state = 'open'", arguments: [tripID]) else {
            return
        }
        let start: Int64 = trip["start_time_ns"]
        let points = try Row.fetchAll(db, sql: "SELECT time_ns, utc_ns, lat, lon, alt_m, speed FROM track_points WHERE trip_id = ? ORDER BY time_ns", arguments: [tripID])
        var distance = 0.0, moving = 0.0, maxSpeed = 0.0, gain = 0.0
        var path: [Coordinate] = []
        for (i, row) in points.enumerated() {
            let c = Coordinate(latitude: row["lat"], longitude: row["lon"])
            path.append(c)
            maxSpeed = max(maxSpeed, row["speed"])
            guard i > 0 else { continue }
            let prev = points[i - 1]
            distance += Geo.distance(Coordinate(latitude: prev["lat"], longitude: prev["lon"]), c)
            let dt = Double((row["time_ns"] as Int64) - (prev["time_ns"] as Int64)) / 1e9
            if (row["speed"] as Double) >= configuration.movingSpeed { moving += dt }
            if let a: Double = row["alt_m"], let b: Double = prev["alt_m"], a > b { gain += a - b }
        }
        let endTime: Int64 = points.last?["time_ns"] ?? start
        let endUTC: Int64? = points.last?["utc_ns"]
        try db.execute(sql: """
            UPDATE trips SET state = 'closed', closed_by = 'recovery', end_time_ns = ?, end_utc_ns = ?, distance_m = ?,
                elapsed_s = ?, moving_s = ?, avg_moving_speed = ?, max_speed = ?, elevation_gain_m = ?, co2_avoided_g = ?, path = ?
            WHERE id = ?
            """, arguments: [endTime, endUTC, distance, Double(endTime - start) / 1e9, moving,
                             moving > 0 ? distance / moving : 0, maxSpeed, gain,
                             distance / 1000 * configuration.co2GramsPerKilometre, Ingest.pathBlob(path), tripID])
        try Drafts.create(db, tripID: tripID, reviewBudget: configuration.reviewBudget)
        _ = try Milestones.check(db, tripID: tripID, steps: configuration.milestoneSteps)
    }
}

enum Geo {
    /// Great-circle distance on the WGS-84 mean radius, metres.
    static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let r = 6_371_008.8
        let dLat = (b.latitude - a.latitude) * .pi / 180
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2)
            + cos(a.latitude * .pi / 180) * cos(b.latitude * .pi / 180) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * r * asin(min(1, sqrt(h)))
    }
}

extension Store {
    /// The ride goes on after a restart: keep the open trip; the writer keeps
    /// appending to it. Returns its id, or nil when no trip was open.
    @discardableResult
    public func resumeOpenTrip() throws -> String? {
        try queue.read { db in try Ingest.loadOpenTrip(db) }
    }

    /// The ride is over: close the open trip at its last committed point and
    /// make it a draft. Returns the closed trip's id, or nil when none was open.
    @discardableResult
    public func closeOpenTrip() throws -> String? {
        let configuration = configuration
        return try queue.write { db in
            guard let id = try Ingest.loadOpenTrip(db) else { return nil }
            try Recovery.closeAtLastPoint(db, tripID: id, configuration: configuration)
            return id
        }
    }
}

/// The open trip and when its last point was taken: what `bikepathd run`
/// decides from at start whether the ride goes on.
public struct OpenTripInfo: Sendable, Equatable {
    public var id: String
    public var lastPointUTCNanoseconds: Int64?
}

extension Store {
    public func openTripInfo() throws -> OpenTripInfo? {
        try queue.read { db in
            guard let id = try Ingest.loadOpenTrip(db) else { return nil }
            let utc = try Int64.fetchOne(db, sql: "SELECT MAX(utc_ns) FROM track_points WHERE trip_id = ?", arguments: [id])
            return OpenTripInfo(id: id, lastPointUTCNanoseconds: utc)
        }
    }
}
