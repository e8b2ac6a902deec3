import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

/// `drafts … --json` in the schema of docs/json.md. The store's own `DraftDocument`
/// stays as it is (it is also the confirmed payload that is hashed and sent);
/// this is the designed view of it for scripts.
public enum DraftJSON {
    public struct List: Encodable {
        public var schema = JSONSchema.version
        public var drafts: [Summary]
    }

    public struct Summary: Encodable {
        public var id: String
        public var trip_id: String
        public var state: String
        public var start_utc: String?
        public var distance_m: Double
        public var obstacles: Int
        /// Detected candidates the review budget held back (stored, not asked).
        public var held_back: Int
        public var path_status: String?
    }

    public struct Draft: Encodable {
        public var schema = JSONSchema.version
        public var id: String
        public var state: String
        public var path_status: String?
        public var trip: JSONMerged<Trip, TripTotalsJSON>
        public var path: [[Double]]
        public var obstacles: [Obstacle]
        public var held_back: Int
        public var road_quality: [Road]
        public var edits: [Edit]
    }

    public struct Trip: Encodable {
        public var id: String
        public var start_time_s: Double
        public var end_time_s: Double?
        public var start_utc: String?
        public var end_utc: String?
        public var closed_by: String?
    }

    public struct Obstacle: Encodable {
        public var id: String
        public var event_id: String?
        public var kind: String
        public var time_s: Double?
        /// Seconds after the trip's start: what `drafts edit --add KIND@SECONDS` takes.
        public var offset_s: Double?
        public var lat: Double?
        public var lon: Double?
        public var dropped: Bool
        public var origin: String
        /// Not asked: over the draft's review budget (docs/configuration.md, "Review budget").
        public var held_back: Bool
        /// 1 = asked first (severity × confidence, highest first); nil for the rider's own.
        public var review_rank: Int?
        public var severity: Double
        public var confidence: Double
        public var strength: Double
    }

    public struct Road: Encodable {
        public var start_time_s: Double
        public var end_time_s: Double
        public var start_lat: Double?
        public var start_lon: Double?
        public var end_lat: Double?
        public var end_lon: Double?
        public var length_m: Double
        public var roughness: Double
        public var status: String
    }

    public struct Edit: Encodable {
        public var action: String
        public var detail: EditDetail
    }

    /// What an edit changed, with typed fields (the store keeps it as a JSON object of
    /// strings, `draft_edits.detail`, which undo reads back): `set-kind` has `obstacle`,
    /// `kind`, `from_kind`; `drop` has `obstacle`; `add` has `obstacle`, `kind`, `lat`,
    /// `lon` and, when added by time, `time_s` and `offset_s`; `set-path-status` has
    /// `path_status` and `from_path_status` (left out when the path was not rated).
    public struct EditDetail: Encodable, Equatable {
        public var obstacle: String?
        public var kind: String?
        public var from_kind: String?
        public var lat: Double?
        public var lon: Double?
        public var time_s: Double?
        public var offset_s: Double?
        public var path_status: String?
        public var from_path_status: String?

        /// `stored` is the store's detail text; one that cannot be read gives an empty object.
        init(action: String, stored: String, tripStartNanoseconds: Int64) {
            let d = (try? JSONDecoder().decode([String: String].self, from: Data(stored.utf8))) ?? [:]
            func nonEmpty(_ key: String) -> String? { d[key].flatMap { $0.isEmpty ? nil : $0 } }
            obstacle = d["obstacle"]
            lat = d["lat"].flatMap(Double.init)
            lon = d["lon"].flatMap(Double.init)
            let timeNanoseconds = d["time_ns"].flatMap(Int64.init)
            time_s = timeNanoseconds.map { Double($0) / 1e9 }
            offset_s = timeNanoseconds.map { Double($0 - tripStartNanoseconds) / 1e9 }
            if action == "set-path-status" {
                path_status = nonEmpty("status")
                from_path_status = nonEmpty("from")
            } else {
                kind = d["kind"]
                from_kind = nonEmpty("from")
            }
        }
    }

    /// The result of `confirm` and `reject`.
    public struct Transition: Encodable {
        public var schema = JSONSchema.version
        public var id: String
        public var state: String
        /// `queued`, or why the draft stays on the device.
        public var sync: String?
        /// Confirm only: whether the running daemon was woken to send it now; when not, what it
        /// waits for (`ConsentPolicy.ConfirmedDraftSync.Departure.WaitsFor`), why, and when it leaves.
        public var woken: Bool?
        public var waits_for: String?
        public var why: String?
        public var leaves: String?

        public init(id: String, state: String, sync: String? = nil) {
            self.id = id
            self.state = state
            self.sync = sync
        }

        /// The result of `confirm`: its `sync` and where it stands (`departure`).
        public init(
            id: String, state: String, confirmed fate: ConsentPolicy.ConfirmedDraftSync, now: ConsentPolicy.ConfirmedDraftSync.SyncNow?
        ) {
            self.init(id: id, state: state, sync: fate.json)
            let d = fate.departure(now: now)
            woken = d.woken
            waits_for = d.waitsFor?.rawValue
            why = d.why
            leaves = d.leaves
        }
    }

    public static func list(_ drafts: [DraftSummary]) -> List {
        List(
            drafts: drafts.map {
                Summary(
                    id: $0.id, trip_id: $0.tripID, state: $0.state.rawValue, start_utc: $0.startUTCNanoseconds.map(utc),
                    distance_m: $0.distanceMeters, obstacles: $0.obstacles, held_back: $0.heldBack,
                    path_status: $0.pathStatus?.rawValue)
            })
    }

    public static func draft(_ d: DraftDocument) -> Draft {
        let t = d.trip
        func seconds(_ ns: Int64) -> Double { Double(ns) / 1e9 }
        return Draft(
            id: d.id, state: d.state.rawValue, path_status: d.pathStatus?.rawValue,
            trip: JSONMerged(
                head: Trip(
                    id: t.id, start_time_s: seconds(t.startTimeNanoseconds), end_time_s: t.endTimeNanoseconds.map(seconds),
                    start_utc: t.startUTCNanoseconds.map(utc), end_utc: t.endUTCNanoseconds.map(utc),
                    closed_by: t.closedBy),
                tail: TripTotalsJSON(t.statistics)),
            path: d.path.map { [$0.latitude, $0.longitude] },
            obstacles: d.obstacles.map { o in
                Obstacle(
                    id: o.id, event_id: o.eventID, kind: o.kind.rawValue, time_s: o.timeNanoseconds.map(seconds),
                    offset_s: o.timeNanoseconds.map { seconds($0 - t.startTimeNanoseconds) },
                    lat: o.coordinate?.latitude, lon: o.coordinate?.longitude, dropped: o.dropped, origin: o.origin,
                    held_back: o.heldBack, review_rank: o.reviewRank, severity: o.severity, confidence: o.confidence,
                    strength: o.strength)
            },
            held_back: d.heldBackCount,
            road_quality: d.roadQuality.map { r in
                Road(
                    start_time_s: r.startTime.seconds, end_time_s: r.endTime.seconds, start_lat: r.start?.latitude,
                    start_lon: r.start?.longitude, end_lat: r.end?.latitude, end_lon: r.end?.longitude,
                    length_m: r.lengthMeters, roughness: r.roughness, status: r.status.rawValue)
            },
            edits: d.edits.map {
                Edit(
                    action: $0.action,
                    detail: EditDetail(action: $0.action, stored: $0.detail, tripStartNanoseconds: t.startTimeNanoseconds))
            })
    }

    private static func utc(_ ns: Int64) -> String { ChainOutputJSON.iso8601(UTCTime(nanosecondsSince1970: ns)) }
}
