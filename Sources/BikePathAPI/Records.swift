import Foundation

// The wire's keys are snake_case with the unit in the key, as every JSON the project
// writes (docs/json.md, "Rules"): each type names its keys in `CodingKeys`, so a Swift
// property renamed never renames a key (a `convertToSnakeCase` strategy would, and would
// write `co2AvoidedG` as `co2_avoided_g` but `maxSpeed` as `max_speed`, without the unit).

/// The kinds of record a device uploads (docs/api.yaml). Keys are made on the device.
public enum RecordKind: String, Sendable, Codable, CaseIterable {
    case sos, confirmation, draft, trip
}

/// A WGS 84 position in degrees, as every upload carries it.
public struct WirePosition: Sendable, Codable, Equatable {
    public var lat: Double
    public var lon: Double
    /// Creates a position from latitude and longitude in degrees.
    public init(lat: Double, lon: Double) {
        self.lat = lat
        self.lon = lon
    }
}

/// An emergency: sent at once, ahead of everything.
public struct SOSUpload: Sendable, Codable, Equatable {
    public var id: String
    /// Device sample time of the alarm and of the impact, ns (monotonic, device-local).
    public var timeNs: Int64
    public var impactTimeNs: Int64
    public var impactPeak: Double
    public var utcNs: Int64?
    /// Absent when the device had no fix, or the fix lay in a privacy zone.
    public var position: WirePosition?
    enum CodingKeys: String, CodingKey {
        case id, timeNs = "time_ns", impactTimeNs = "impact_time_ns", impactPeak = "impact_peak_mps2", utcNs = "utc_ns", position
    }
    /// Creates an SOS record from its fields.
    public init(id: String, timeNs: Int64, impactTimeNs: Int64, impactPeak: Double, utcNs: Int64?, position: WirePosition?) {
        self.id = id
        self.timeNs = timeNs
        self.impactTimeNs = impactTimeNs
        self.impactPeak = impactPeak
        self.utcNs = utcNs
        self.position = position
    }
}

/// A trip's statistics on the wire: metres, seconds, m/s and grams of CO₂.
public struct TripStatisticsUpload: Sendable, Codable, Equatable {
    public var distanceM: Double
    public var elapsedS: Double
    public var movingS: Double
    public var avgMovingSpeed: Double
    public var maxSpeed: Double
    public var elevationGainM: Double
    public var co2AvoidedG: Double
    enum CodingKeys: String, CodingKey {
        case distanceM = "distance_m", elapsedS = "elapsed_s", movingS = "moving_s", avgMovingSpeed = "avg_moving_speed_mps", maxSpeed =
            "max_speed_mps", elevationGainM = "elevation_gain_m", co2AvoidedG = "co2_avoided_g"
    }
    /// Creates trip statistics from their fields.
    public init(
        distanceM: Double, elapsedS: Double, movingS: Double, avgMovingSpeed: Double, maxSpeed: Double,
        elevationGainM: Double, co2AvoidedG: Double
    ) {
        self.distanceM = distanceM
        self.elapsedS = elapsedS
        self.movingS = movingS
        self.avgMovingSpeed = avgMovingSpeed
        self.maxSpeed = maxSpeed
        self.elevationGainM = elevationGainM
        self.co2AvoidedG = co2AvoidedG
    }
}

/// A trip summary: times and statistics, no positions.
public struct TripUpload: Sendable, Codable, Equatable {
    public var id: String
    public var startUtcNs: Int64?
    public var endUtcNs: Int64?
    public var statistics: TripStatisticsUpload
    enum CodingKeys: String, CodingKey { case id, startUtcNs = "start_utc_ns", endUtcNs = "end_utc_ns", statistics }
    /// Creates a trip summary from its fields.
    public init(id: String, startUtcNs: Int64?, endUtcNs: Int64?, statistics: TripStatisticsUpload) {
        self.id = id
        self.startUtcNs = startUtcNs
        self.endUtcNs = endUtcNs
        self.statistics = statistics
    }
}

/// An obstacle of a draft: its kind (one of `kinds`), where and when, and who found it.
public struct ObstacleUpload: Sendable, Codable, Equatable {
    public static let kinds: Set<String> = ["pothole", "bump", "irregularity", "debris"]
    public var id: String
    public var kind: String
    /// Seconds since the trip's start (device sample time).
    public var offsetS: Double?
    public var position: WirePosition?
    /// "detected" by the device, or added by the "rider".
    public var origin: String
    enum CodingKeys: String, CodingKey { case id, kind, offsetS = "offset_s", position, origin }
    /// Creates an obstacle from its fields.
    public init(id: String, kind: String, offsetS: Double?, position: WirePosition?, origin: String) {
        self.id = id
        self.kind = kind
        self.offsetS = offsetS
        self.position = position
        self.origin = origin
    }
}

/// A stretch of road with its roughness and status (one of `statuses`); offsets are seconds
/// since the trip's start.
public struct RoadSegmentUpload: Sendable, Codable, Equatable {
    public static let statuses: Set<String> = ["optimal", "medium", "sufficient", "requiresMaintenance"]
    public var startOffsetS: Double
    public var endOffsetS: Double
    public var start: WirePosition?
    public var end: WirePosition?
    public var lengthM: Double
    public var roughness: Double
    public var status: String
    enum CodingKeys: String, CodingKey {
        case startOffsetS = "start_offset_s", endOffsetS = "end_offset_s", start, end, lengthM = "length_m", roughness, status
    }
    /// Creates a road-quality stretch from its fields.
    public init(
        startOffsetS: Double, endOffsetS: Double, start: WirePosition?, end: WirePosition?, lengthM: Double,
        roughness: Double, status: String
    ) {
        self.startOffsetS = startOffsetS
        self.endOffsetS = endOffsetS
        self.start = start
        self.end = end
        self.lengthM = lengthM
        self.roughness = roughness
        self.status = status
    }
}

/// A trip as the rider reviews it: path, obstacles, road quality. Uploaded as a
/// private draft (never published) or, inside a confirmation, for publishing.
public struct DraftUpload: Sendable, Codable, Equatable {
    public var id: String
    public var trip: TripUpload
    public var pathStatus: String?
    /// [lat, lon] pairs, 6 decimals (about 0.1 m), already trimmed and without privacy-zone points.
    public var path: [[Double]]
    public var obstacles: [ObstacleUpload]
    public var roadQuality: [RoadSegmentUpload]
    enum CodingKeys: String, CodingKey { case id, trip, pathStatus = "path_status", path, obstacles, roadQuality = "road_quality" }
    /// Creates a draft from its fields.
    public init(
        id: String, trip: TripUpload, pathStatus: String?, path: [[Double]], obstacles: [ObstacleUpload],
        roadQuality: [RoadSegmentUpload]
    ) {
        self.id = id
        self.trip = trip
        self.pathStatus = pathStatus
        self.path = path
        self.obstacles = obstacles
        self.roadQuality = roadQuality
    }
}

/// The rider confirmed the draft: the hub may publish it. `confirmed` must be true;
/// the hash is the SHA-256 of the document the rider confirmed on the device.
public struct ConfirmationUpload: Sendable, Codable, Equatable {
    public var confirmed: Bool
    public var confirmedSha256: String?
    public var draft: DraftUpload
    enum CodingKeys: String, CodingKey { case confirmed, confirmedSha256 = "confirmed_sha256", draft }
    /// Creates a confirmation of `draft`.
    public init(confirmed: Bool, confirmedSha256: String?, draft: DraftUpload) {
        self.confirmed = confirmed
        self.confirmedSha256 = confirmedSha256
        self.draft = draft
    }
}

/// Latest-only live position; never queued.
public struct LivePositionUpload: Sendable, Codable, Equatable {
    public var utcNs: Int64?
    public var position: WirePosition
    public var speed: Double?
    enum CodingKeys: String, CodingKey { case utcNs = "utc_ns", position, speed = "speed_mps" }
    /// Creates a live position; `speed` in m/s, `utcNs` in ns since 1970.
    public init(utcNs: Int64?, position: WirePosition, speed: Double?) {
        self.utcNs = utcNs
        self.position = position
        self.speed = speed
    }
}

// Optional fields are left out when they have no value; `null` is refused. docs/api.yaml
// declares no field nullable, and the client's encoder never writes `null`, so refusing it
// keeps one spelling of "no value" and keeps the hub inside its own schema (the
// contract test found `position: null` and `endUtcNs: null` accepted). The synthesized
// decoders took `null` as absent.
extension KeyedDecodingContainer {
    /// The field's value, nil when the field is absent; `null` throws `valueNotFound`.
    func decodeOptionalField<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard contains(key) else { return nil }
        if try decodeNil(forKey: key) {
            throw DecodingError.valueNotFound(
                T.self,
                .init(
                    codingPath: codingPath + [key],
                    debugDescription: "null is not a value here: leave the field out"))
        }
        return try decode(T.self, forKey: key)
    }
}

extension SOSUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), timeNs: try c.decode(Int64.self, forKey: .timeNs),
            impactTimeNs: try c.decode(Int64.self, forKey: .impactTimeNs), impactPeak: try c.decode(Double.self, forKey: .impactPeak),
            utcNs: try c.decodeOptionalField(Int64.self, forKey: .utcNs),
            position: try c.decodeOptionalField(WirePosition.self, forKey: .position))
    }
}

extension TripUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), startUtcNs: try c.decodeOptionalField(Int64.self, forKey: .startUtcNs),
            endUtcNs: try c.decodeOptionalField(Int64.self, forKey: .endUtcNs),
            statistics: try c.decode(TripStatisticsUpload.self, forKey: .statistics))
    }
}

extension ObstacleUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), kind: try c.decode(String.self, forKey: .kind),
            offsetS: try c.decodeOptionalField(Double.self, forKey: .offsetS),
            position: try c.decodeOptionalField(WirePosition.self, forKey: .position), origin: try c.decode(String.self, forKey: .origin))
    }
}

extension RoadSegmentUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            startOffsetS: try c.decode(Double.self, forKey: .startOffsetS), endOffsetS: try c.decode(Double.self, forKey: .endOffsetS),
            start: try c.decodeOptionalField(WirePosition.self, forKey: .start),
            end: try c.decodeOptionalField(WirePosition.self, forKey: .end),
            lengthM: try c.decode(Double.self, forKey: .lengthM), roughness: try c.decode(Double.self, forKey: .roughness),
            status: try c.decode(String.self, forKey: .status))
    }
}

extension DraftUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), trip: try c.decode(TripUpload.self, forKey: .trip),
            pathStatus: try c.decodeOptionalField(String.self, forKey: .pathStatus), path: try Self.path(c),
            obstacles: try c.decode([ObstacleUpload].self, forKey: .obstacles),
            roadQuality: try c.decode([RoadSegmentUpload].self, forKey: .roadQuality))
    }

    /// The path's points through nested containers: `[[Double]]` decoded as a generic array of
    /// generic arrays took most of a confirmation's decoding (`BikePathBench map-index`).
    private static func path(_ c: KeyedDecodingContainer<CodingKeys>) throws -> [[Double]] {
        var points = try c.nestedUnkeyedContainer(forKey: .path)
        var path: [[Double]] = []
        path.reserveCapacity(points.count ?? 0)
        while !points.isAtEnd {
            var point = try points.nestedUnkeyedContainer()
            var coordinates: [Double] = []
            coordinates.reserveCapacity(point.count ?? 2)
            while !point.isAtEnd { coordinates.append(try point.decode(Double.self)) }
            path.append(coordinates)
        }
        return path
    }
}

extension ConfirmationUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            confirmed: try c.decode(Bool.self, forKey: .confirmed),
            confirmedSha256: try c.decodeOptionalField(String.self, forKey: .confirmedSha256),
            draft: try c.decode(DraftUpload.self, forKey: .draft))
    }
}

extension LivePositionUpload {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            utcNs: try c.decodeOptionalField(Int64.self, forKey: .utcNs), position: try c.decode(WirePosition.self, forKey: .position),
            speed: try c.decodeOptionalField(Double.self, forKey: .speed))
    }
}
