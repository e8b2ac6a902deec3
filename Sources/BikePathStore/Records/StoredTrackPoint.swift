import BikePathCore
import GRDB

/// A row of `track_points` (Schema.swift), its columns named once here.
struct StoredTrackPoint: FetchableRecord, TableRecord {
    static let databaseTableName = "track_points"

    enum Columns {
        static let tripID = Column("trip_id")
        static let time = Column("time_ns")
        static let utc = Column("utc_ns")
        static let latitude = Column("lat")
        static let longitude = Column("lon")
        static let altitude = Column("alt_m")
        static let speed = Column("speed")
        static let moving = Column("moving")
        static let groundSpeed = Column("ground_speed")
    }

    var timeNanoseconds: Int64
    var utcNanoseconds: Int64?
    var coordinate: Coordinate
    var altitudeMSL: Double?
    var speed: Double
    /// Stored from schema v3 on; nil for older points.
    var moving: Bool?
    /// Stored from schema v5 on; nil for older points and when the receiver gave none.
    var groundSpeed: Double?

    init(row: Row) throws {
        timeNanoseconds = row[Columns.time]
        utcNanoseconds = row[Columns.utc]
        coordinate = Coordinate(latitude: row[Columns.latitude], longitude: row[Columns.longitude])
        altitudeMSL = row[Columns.altitude]
        speed = row[Columns.speed]
        moving = row[Columns.moving]
        groundSpeed = row[Columns.groundSpeed]
    }

    /// The trip's points in time order.
    static func ofTrip(_ tripID: String) -> QueryInterfaceRequest<StoredTrackPoint> {
        filter(Columns.tripID == tripID).order(Columns.time)
    }

    /// The point as the chain made it; a point from before `moving` was stored counts as
    /// moving at or above `autoPauseBelow` m/s (the chain's own rule).
    func trackPoint(autoPauseBelow: Double) -> TrackPoint {
        TrackPoint(
            time: SampleTime(nanoseconds: timeNanoseconds), utc: utcNanoseconds.map(UTCTime.init(nanosecondsSince1970:)),
            coordinate: coordinate, altitudeMSL: altitudeMSL, speed: speed, moving: moving ?? (speed >= autoPauseBelow),
            groundSpeed: groundSpeed)
    }
}
