import BikePathAPI
import BikePathCore
import Foundation

/// RFC 7946 documents as the read API answers them: they open in QGIS or geojson.io
/// as they are. Coordinates are [longitude, latitude], rounded to 5 decimals (~1 m).
struct FeatureCollection<Properties: Encodable & Sendable>: Encodable, Sendable {
    var type = "FeatureCollection"
    var features: [Feature<Properties>]

    /// The answer's bytes: `WireJSON.encode`'s, written by `CanonicalJSONEncoder`
    /// (Foundation's `JSONEncoder` took about half of a 1 km² network answer, ~27 KB of
    /// coordinates; `MapAnswerBytesTests` holds the two to the same bytes).
    func encoded() throws -> Data { Data(try CanonicalJSONEncoder.encode(self)) }
}

struct Feature<Properties: Encodable & Sendable>: Encodable, Sendable {
    var type = "Feature"
    var geometry: Geometry
    var properties: Properties
}

enum Geometry: Encodable, Sendable {
    case point(Coordinate)
    case line([Coordinate])
    case box(south: Double, west: Double, north: Double, east: Double)

    enum CodingKeys: String, CodingKey { case type, coordinates }

    static func rounded(_ x: Double) -> Double { (x * 100_000).rounded() / 100_000 }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .point(let p):
            try c.encode("Point", forKey: .type)
            try c.encode([Self.rounded(p.longitude), Self.rounded(p.latitude)], forKey: .coordinates)
        case .line(let points):
            try c.encode("LineString", forKey: .type)
            try c.encode(points.map { [Self.rounded($0.longitude), Self.rounded($0.latitude)] }, forKey: .coordinates)
        case .box(let s, let w, let n, let e):
            try c.encode("Polygon", forKey: .type)
            // One ring, counter-clockwise, closed (RFC 7946 §3.1.6).
            let ring = [[w, s], [e, s], [e, n], [w, n], [w, s]].map { $0.map(Self.rounded) }
            try c.encode([ring], forKey: .coordinates)
        }
    }
}

struct ObstacleProperties: Encodable, Sendable {
    var kind: String
    var riders: Int
    var passesWithoutReport: Int
    var confidence: Double
    /// UTC days (YYYY-MM-DD): no time of day, so no ride can be picked out by its time.
    var firstSeen: String?
    var lastSeen: String?
    enum CodingKeys: String, CodingKey {
        case kind, riders, passesWithoutReport = "passes_without_report", confidence, firstSeen = "first_seen", lastSeen = "last_seen"
    }
}

struct StatusProperties: Encodable, Sendable {
    var status: String
    var riders: Int
}

struct HeatProperties: Encodable, Sendable {
    var reports: Int
    var riders: Int
}

extension SharedMap {
    /// A UTC day as `yyyy-MM-dd`, by calendar arithmetic: a Foundation `DateFormatter` made
    /// per call took ~170 µs, most of a 1 km² network answer's time (one per edge).
    static func day(_ d: Int?) -> String? { d.map { UTCCivilTime(days: $0).isoDate } }

    /// What `/v1/map/obstacles` and `/v1/map/status` answer for `box`, encoded.
    public func encodedGeoJSON(in box: BoundingBox) throws -> (obstacles: Data, status: Data) {
        (try obstaclesGeoJSON(in: box).encoded(), try statusGeoJSON(in: box).encoded())
    }

    func obstaclesGeoJSON(in box: BoundingBox) -> FeatureCollection<ObstacleProperties> {
        FeatureCollection(
            features: publishedObstacles(in: box).map { o in
                Feature(
                    geometry: .point(o.position),
                    properties: ObstacleProperties(
                        kind: o.kind, riders: o.riders, passesWithoutReport: o.passesWithoutReport,
                        confidence: (o.confidence * 1000).rounded() / 1000,
                        firstSeen: Self.day(o.firstDay), lastSeen: Self.day(o.lastDay)))
            })
    }

    func statusGeoJSON(in box: BoundingBox) -> FeatureCollection<StatusProperties> {
        FeatureCollection(
            features: publishedStatus(in: box).map { c in
                let b = pathStatus.grid.bounds(of: c.cell)
                return Feature(
                    geometry: .box(south: b.south, west: b.west, north: b.north, east: b.east),
                    properties: StatusProperties(status: c.status.rawValue, riders: c.riders))
            })
    }

    func heatmapGeoJSON(in box: BoundingBox, grid: MapGrid) -> FeatureCollection<HeatProperties> {
        FeatureCollection(
            features: heatmap(in: box, grid: grid).map { h in
                let b = grid.bounds(of: h.cell)
                return Feature(
                    geometry: .box(south: b.south, west: b.west, north: b.north, east: b.east),
                    properties: HeatProperties(reports: h.reports, riders: h.riders))
            })
    }
}
