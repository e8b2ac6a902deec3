import BikePathAPI
import BikePathCore
import Foundation

/// `GET /v1/routes` as answered (docs/api.yaml, "Routes"): a GeoJSON FeatureCollection,
/// one LineString per route, best first.
struct RouteProperties: Encodable, Sendable {
    var rank: Int
    var best: Bool
    var lengthM: Double
    var score: Double
    /// Metres per status along the route; `unknown` where no trip rated it.
    var statusM: [String: Double]
    var obstacles: [RouteObstacle]
    enum CodingKeys: String, CodingKey { case rank, best, lengthM = "length_m", score, statusM = "status_m", obstacles }
}

struct RouteObstacle: Encodable, Sendable {
    var kind: String
    var confidence: Double
    var riders: Int
    /// [longitude, latitude], as GeoJSON writes positions.
    var coordinates: [Double]
}

/// The query of `GET /v1/routes`, checked.
struct RouteQuery: Sendable, Equatable {
    var from: Coordinate
    var to: Coordinate
    var k: Int

    /// Routes are for riding: origin and destination at most this far apart (the search
    /// box stays within a city's map tiles).
    static let maxDistanceMeters = 50_000.0

    /// Why a query was refused: its error code and message.
    static func parse(from: String?, to: String?, k: String?) -> Result<RouteQuery, Refusal> {
        guard let a = point(from) else {
            return .failure(Refusal(.badRequest, "bad-point", "from must be LAT,LON in degrees, got \(from ?? "nothing")"))
        }
        guard let b = point(to) else {
            return .failure(Refusal(.badRequest, "bad-point", "to must be LAT,LON in degrees, got \(to ?? "nothing")"))
        }
        let count = k.map { Int($0) ?? 0 } ?? 3
        guard (1...RouteRule.maxRoutes).contains(count) else {
            return .failure(Refusal(.badRequest, "bad-k", "k must be a whole number from 1 to \(RouteRule.maxRoutes), got \(k ?? "")"))
        }
        // The search reads a box between the ends: across ±180° that box would be the world's
        // width. Said as what it is (it was refused as 40,074 km apart).
        guard abs(b.longitude - a.longitude) <= 180 else {
            return .failure(
                Refusal(
                    .badRequest, "across-antimeridian",
                    "origin and destination lie either side of the antimeridian (±180°); routes across it are not searched"))
        }
        let distance = Geodesic.distance(a, b)
        guard distance <= maxDistanceMeters else {
            return .failure(
                Refusal(
                    .badRequest, "too-far",
                    "origin and destination are \(Int(distance / 1000)) km apart; routes are searched up to \(Int(maxDistanceMeters / 1000)) km"
                ))
        }
        return .success(RouteQuery(from: a, to: b, k: count))
    }

    /// `LAT,LON`: two plain decimals (docs/api.yaml's pattern), within range.
    static func point(_ text: String?) -> Coordinate? {
        guard let text else { return nil }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let lat = DecimalText.number(parts[0], exponent: false),
            let lon = DecimalText.number(parts[1], exponent: false),
            (-90...90).contains(lat), (-180...180).contains(lon)
        else { return nil }
        return Coordinate(latitude: lat, longitude: lon)
    }
}

extension Route {
    /// The corroborated obstacles on this route: those whose nearest link within the
    /// corroboration radius is one of its links carrying obstacles.
    func obstacles(among spots: [ReportedObstacle], radiusMeters: Double) -> [ReportedObstacle] {
        let carrying = links.filter { $0.obstacles.count > 0 }
        return spots.filter { spot in
            spot.corroborated && !LinkObstacles.assign([spot], to: carrying, radiusMeters: radiusMeters).isEmpty
        }
    }

    static func geoJSON(_ routes: [Route], spots: [ReportedObstacle], radiusMeters: Double) -> FeatureCollection<RouteProperties> {
        FeatureCollection(
            features: routes.enumerated().map { i, r in
                var statusM: [String: Double] = ["unknown": 0]
                for s in PathStatus.allCases { statusM[s.rawValue] = 0 }
                for (s, m) in r.statusMeters { statusM[s?.rawValue ?? "unknown", default: 0] += (m * 10).rounded() / 10 }
                let obstacles = r.obstacles(among: spots, radiusMeters: radiusMeters).map {
                    RouteObstacle(
                        kind: $0.kind, confidence: ($0.confidence * 1000).rounded() / 1000, riders: $0.riders,
                        coordinates: [Geometry.rounded($0.position.longitude), Geometry.rounded($0.position.latitude)])
                }
                // Both ends joined at one node: a LineString still needs two positions (RFC 7946
                // §3.1.4); a one-position line was invalid GeoJSON.
                return Feature(
                    geometry: .line(r.path.count == 1 ? r.path + r.path : r.path),
                    properties: RouteProperties(
                        rank: i + 1, best: i == 0, lengthM: (r.lengthMeters * 10).rounded() / 10,
                        score: (r.score * 10).rounded() / 10, statusM: statusM, obstacles: obstacles))
            })
    }
}
