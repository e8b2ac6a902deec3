import BikePathCore
import Foundation
import GRDB

/// What to do with a trip that a crash or power loss left open.
enum Recovery {
    /// Closes an open trip from its stored points with the chain's own
    /// computation (`TripTotals`: geodesic steps, elevation hysteresis,
    /// Douglas–Peucker, the configured CO₂ factor): it ends where the rider last
    /// moved, as the chain ends an automatic trip, and becomes a draft like any
    /// other closed trip. Points stored before schema v3 have no `moving` flag:
    /// the chain's speed rule stands in for it; points stored before v5 have no
    /// ground speed: their distance is measured between positions.
    static func closeAtLastPoint(_ db: Database, tripID: String, configuration: StoreConfiguration) throws {
        guard let trip = try StoredTrip.find(db, id: tripID, open: true) else { return }
        let start = SampleTime(nanoseconds: trip.startTimeNanoseconds)
        var totals = TripTotals(configuration: configuration.trip)
        var path: [Coordinate] = []
        var last: TrackPoint?
        let rows = try StoredTrackPoint.ofTrip(tripID).fetchCursor(db)
        while let stored = try rows.next() {
            let point = stored.trackPoint(autoPauseBelow: configuration.trip.autoPauseBelowSpeed)
            totals.add(point)
            path.append(point.coordinate)
            last = point
        }
        let end: (time: SampleTime, utc: UTCTime?) =
            totals.lastMoving ?? last.map { (time: $0.time, utc: $0.utc) } ?? (time: start, utc: nil)
        let (s, simplified) = totals.finished(start: start, end: end.time, path: path)
        try db.execute(
            sql: """
                UPDATE trips SET state = 'closed', closed_by = 'recovery', end_time_ns = ?, end_utc_ns = ?, distance_m = ?,
                    elapsed_s = ?, moving_s = ?, avg_moving_speed = ?, max_speed = ?, elevation_gain_m = ?, co2_avoided_g = ?, path = ?
                WHERE id = ?
                """,
            arguments: [
                end.time.nanoseconds, end.utc?.nanosecondsSince1970, s.distanceMeters, s.elapsedSeconds, s.movingSeconds,
                s.averageMovingSpeed, s.maxSpeed, s.elevationGainMeters, s.co2AvoidedGrams, Ingest.pathBlob(simplified), tripID,
            ])
        try HashChain.linkTrip(db, id: tripID)
        try Drafts.create(db, tripID: tripID, reviewBudget: configuration.reviewBudget)
        _ = try Milestones.check(db, tripID: tripID, steps: configuration.milestoneSteps)
    }
}

extension Store {
    /// The ride goes on after a restart: keep the open trip; the writer keeps
    /// appending to it. Returns its id, or nil when no trip was open.
    @discardableResult
    public func resumeOpenTrip() throws -> String? {
        try pool.read { db in try Ingest.loadOpenTrip(db) }
    }

    /// The ride is over: close the open trip at its last committed point and
    /// make it a draft. Returns the closed trip's id, or nil when none was open.
    @discardableResult
    public func closeOpenTrip() throws -> String? {
        let configuration = configuration
        return try pool.write { db in
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
    /// The trip left open by a crash or power loss and the UTC of its last point; nil when none
    /// is open.
    /// - Throws: a GRDB `DatabaseError` when the store cannot be read.
    public func openTripInfo() throws -> OpenTripInfo? {
        try pool.read { db in
            guard let id = try Ingest.loadOpenTrip(db) else { return nil }
            let utc = try Int64.fetchOne(db, sql: "SELECT MAX(utc_ns) FROM track_points WHERE trip_id = ?", arguments: [id])
            return OpenTripInfo(id: id, lastPointUTCNanoseconds: utc)
        }
    }
}
