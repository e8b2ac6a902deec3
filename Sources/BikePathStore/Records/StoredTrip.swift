import BikePathCore
import Foundation
import GRDB

/// A row of `trips` (Schema.swift), its columns named once here. Written by the ingest's
/// SQL (a trip grows a track point at a time); read through this record.
struct StoredTrip: FetchableRecord, TableRecord {
    static let databaseTableName = "trips"

    enum Columns {
        static let id = Column("id")
        static let state = Column("state")
        static let startTime = Column("start_time_ns")
        static let endTime = Column("end_time_ns")
        static let startUTC = Column("start_utc_ns")
        static let endUTC = Column("end_utc_ns")
        static let closedBy = Column("closed_by")
        static let distance = Column("distance_m")
        static let elapsed = Column("elapsed_s")
        static let moving = Column("moving_s")
        static let averageMovingSpeed = Column("avg_moving_speed")
        static let maxSpeed = Column("max_speed")
        static let elevationGain = Column("elevation_gain_m")
        static let co2Avoided = Column("co2_avoided_g")
        static let path = Column("path")
    }

    var id: String
    /// `open` while the ride goes on, `closed` once the chain or a recovery ended it.
    var state: String
    var startTimeNanoseconds: Int64
    var endTimeNanoseconds: Int64?
    var startUTCNanoseconds: Int64?
    var endUTCNanoseconds: Int64?
    /// `chain` or `recovery`; nil while open.
    var closedBy: String?
    var statistics: TripStatistics
    /// The reconstructed path (`Ingest.pathBlob`); nil while open.
    var path: Data?

    init(row: Row) throws {
        id = row[Columns.id]
        state = row[Columns.state]
        startTimeNanoseconds = row[Columns.startTime]
        endTimeNanoseconds = row[Columns.endTime]
        startUTCNanoseconds = row[Columns.startUTC]
        endUTCNanoseconds = row[Columns.endUTC]
        closedBy = row[Columns.closedBy]
        var s = TripStatistics()
        s.distanceMeters = row[Columns.distance]
        s.elapsedSeconds = row[Columns.elapsed]
        s.movingSeconds = row[Columns.moving]
        s.averageMovingSpeed = row[Columns.averageMovingSpeed]
        s.maxSpeed = row[Columns.maxSpeed]
        s.elevationGainMeters = row[Columns.elevationGain]
        s.co2AvoidedGrams = row[Columns.co2Avoided]
        statistics = s
        path = row[Columns.path]
    }

    /// The trip `id`; nil when there is none. `open`: only while it is open.
    static func find(_ db: Database, id: String, open: Bool = false) throws -> StoredTrip? {
        var request = filter(Columns.id == id)
        if open { request = request.filter(Columns.state == "open") }
        return try request.fetchOne(db)
    }
}
