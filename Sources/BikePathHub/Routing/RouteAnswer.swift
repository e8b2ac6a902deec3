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
    /// The access leg, the network's stretches, the access leg (`Route.legs`).
    var legs: [RouteLeg]
    enum CodingKeys: String, CodingKey { case rank, best, lengthM = "length_m", score, statusM = "status_m", obstacles, legs }
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
                // From the asked origin, by the access legs: at least two positions even when
                // both ends join at one point (RFC 7946 §3.1.4).
                return Feature(
                    geometry: .line([r.origin] + r.path + [r.destination]),
                    properties: RouteProperties(
                        rank: i + 1, best: i == 0, lengthM: (r.lengthMeters * 10).rounded() / 10,
                        score: (r.score * 10).rounded() / 10, statusM: statusM, obstacles: obstacles, legs: r.legs))
            })
    }
}
