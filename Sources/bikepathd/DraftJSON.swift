import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

/// `drafts … --json` in the schema of docs/json.md. The store's own `DraftDocument`
/// stays as it is (it is also the confirmed payload that is hashed and sent);
/// this is the designed view of it for scripts.
enum DraftJSON {
    struct List: Encodable {
        var schema = JSONSchema.version
        var drafts: [Summary]
    }

    struct Summary: Encodable {
        var id: String
        var trip_id: String
        var state: String
        var start_utc: String?
        var distance_m: Double
        var obstacles: Int
        /// Detected candidates the review budget held back (stored, not asked).
        var held_back: Int
        var path_status: String?
    }

    struct Draft: Encodable {
        var schema = JSONSchema.version
        var id: String
        var state: String
        var path_status: String?
        var trip: Trip
        var path: [[Double]]
        var obstacles: [Obstacle]
        var held_back: Int
        var road_quality: [Road]
        var edits: [Edit]
    }

    struct Trip: Encodable {
        var id: String
        var start_time_s: Double
        var end_time_s: Double?
        var start_utc: String?
        var end_utc: String?
        var closed_by: String?
        var distance_m: Double
        var elapsed_s: Double
        var moving_s: Double
        var avg_moving_speed_mps: Double
        var max_speed_mps: Double
        var elevation_gain_m: Double
        var co2_avoided_g: Double
    }

    struct Obstacle: Encodable {
        var id: String
        var event_id: String?
        var kind: String
        var time_s: Double?
        /// Seconds after the trip's start: what `drafts edit --add KIND@SECONDS` takes.
        var offset_s: Double?
        var lat: Double?
        var lon: Double?
        var dropped: Bool
        var origin: String
        /// Not asked: over the draft's review budget (docs/configuration.md, "Review budget").
        var held_back: Bool
        /// 1 = asked first (severity × confidence, highest first); nil for the rider's own.
        var review_rank: Int?
        var severity: Double
        var confidence: Double
        var strength: Double
    }

    struct Road: Encodable {
        var start_time_s: Double
        var end_time_s: Double
        var start_lat: Double?
        var start_lon: Double?
        var end_lat: Double?
        var end_lon: Double?
        var length_m: Double
        var roughness: Double
        var status: String
    }

    struct Edit: Encodable {
        var action: String
        var detail: String
    }

    /// The result of `confirm` and `reject`.
    struct Transition: Encodable {
        var schema = JSONSchema.version
        var id: String
        var state: String
        /// `queued`, or why the draft stays on the device.
        var sync: String?
    }

    static func list(_ drafts: [DraftSummary]) -> List {
        List(drafts: drafts.map {
            Summary(id: $0.id, trip_id: $0.tripID, state: $0.state.rawValue, start_utc: $0.startUTCNanoseconds.map(utc),
                    distance_m: $0.distanceMeters, obstacles: $0.obstacles, held_back: $0.heldBack,
                    path_status: $0.pathStatus?.rawValue)
        })
    }

    static func draft(_ d: DraftDocument) -> Draft {
        let t = d.trip, s = t.statistics
        func seconds(_ ns: Int64) -> Double { Double(ns) / 1e9 }
        return Draft(
            id: d.id, state: d.state.rawValue, path_status: d.pathStatus?.rawValue,
            trip: Trip(id: t.id, start_time_s: seconds(t.startTimeNanoseconds), end_time_s: t.endTimeNanoseconds.map(seconds),
                       start_utc: t.startUTCNanoseconds.map(utc), end_utc: t.endUTCNanoseconds.map(utc), closed_by: t.closedBy,
                       distance_m: s.distanceMeters, elapsed_s: s.elapsedSeconds, moving_s: s.movingSeconds,
                       avg_moving_speed_mps: s.averageMovingSpeed, max_speed_mps: s.maxSpeed,
                       elevation_gain_m: s.elevationGainMeters, co2_avoided_g: s.co2AvoidedGrams),
            path: d.path.map { [$0.latitude, $0.longitude] },
            obstacles: d.obstacles.map { o in
                Obstacle(id: o.id, event_id: o.eventID, kind: o.kind.rawValue, time_s: o.timeNanoseconds.map(seconds),
                         offset_s: o.timeNanoseconds.map { seconds($0 - t.startTimeNanoseconds) },
                         lat: o.coordinate?.latitude, lon: o.coordinate?.longitude, dropped: o.dropped, origin: o.origin,
                         held_back: o.heldBack, review_rank: o.reviewRank, severity: o.severity, confidence: o.confidence,
                         strength: o.strength)
            },
            held_back: d.heldBackCount,
            road_quality: d.roadQuality.map { r in
                Road(start_time_s: r.startTime.seconds, end_time_s: r.endTime.seconds, start_lat: r.start?.latitude,
                     start_lon: r.start?.longitude, end_lat: r.end?.latitude, end_lon: r.end?.longitude,
                     length_m: r.lengthMeters, roughness: r.roughness, status: r.status.rawValue)
            },
            edits: d.edits.map { Edit(action: $0.action, detail: $0.detail) })
    }

    private static func utc(_ ns: Int64) -> String { ChainOutputJSON.iso8601(UTCTime(nanosecondsSince1970: ns)) }
}
