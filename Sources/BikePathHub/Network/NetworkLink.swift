import BikePathCore
import Foundation

/// One link of the stored network with what the map says of it: the read side of
/// `PathNetwork` (network GeoJSON, routes).
public struct NetworkLink: Sendable, Equatable {
    public var id: Int64
    public var key: LinkKey
    public var from: Coordinate
    public var to: Coordinate
    public var trips: Int
    public var riders: Int
    public var lastDay: Int?
    /// Trips per rating, best first (`PathStatus.allCases`).
    public var ratings: [Int]
    /// Corroborated obstacles whose nearest link this is (`LinkObstacles`).
    public var obstacles: LinkObstacles
    /// What the link is to a route search: a stored link of the riders' network, or made for
    /// the search from OpenStreetMap's streets (`StreetLinks`).
    public var origin: Origin = .community

    public enum Origin: Sendable, Equatable {
        case community
        /// A straight piece of this street edge, between two of its points or a split of one;
        /// `direction` is the edge's one-way rule turned to run from `key.from` to `key.to`
        /// (`LinkKey` orders its nodes by id, not along the street).
        case street(StreetEdge, direction: StreetRules.Direction)
        /// The short straight line joining a community path's end to a street (`StreetLinks.joinMeters`).
        case join
    }

    public init(
        id: Int64, key: LinkKey, from: Coordinate, to: Coordinate, trips: Int, riders: Int, lastDay: Int?,
        ratings: [Int], obstacles: LinkObstacles, origin: Origin = .community
    ) {
        (self.id, self.key, self.from, self.to, self.trips, self.riders) = (id, key, from, to, trips, riders)
        (self.lastDay, self.ratings, self.obstacles, self.origin) = (lastDay, ratings, obstacles, origin)
    }

    /// The street this link is a piece of, nil for the riders' paths and joins.
    public var street: StreetEdge? {
        if case .street(let edge, _) = origin { return edge }
        return nil
    }

    /// Whether a bicycle may ride the link from `node` (one of its ends) to the other: a
    /// street's one-way (`StreetRules.direction`) forbids one way; every other link goes both ways.
    public func allows(leaving node: Int64) -> Bool {
        guard case .street(_, let direction) = origin else { return true }
        return switch direction {
        case .both: true
        case .forward: node == key.from
        case .backward: node == key.to
        }
    }

    /// The link's end that is not `node`.
    func otherEnd(_ node: Int64) -> Int64 { node == key.from ? key.to : key.from }

    /// The columns of `map_links` a link is read from, in this order, on both stores.
    static let storedColumns = """
        id, source, target, from_lat, from_lon, to_lat, to_lon, trips, riders, last_day,
        rated_optimal, rated_medium, rated_sufficient, rated_requires_maintenance, obstacles, obstacle_confidence
        """

    public var lengthMeters: Double { Geodesic.distance(from, to) }
    /// The tile (`MapTiles.grid`) the link is stored under: its midpoint's.
    public var tile: MapGrid.Cell { MapTiles.grid.cell(of: midpoint) }
    var midpoint: Coordinate { Coordinate(latitude: (from.latitude + to.latitude) / 2, longitude: (from.longitude + to.longitude) / 2) }

    /// The path-status rule per link (docs/hub.md, "Path status"): the median of the trips'
    /// ratings, best first, so one rough pass among many smooth ones does not condemn it;
    /// `requiresMaintenance` under a corroborated obstacle; nil when no trip rated it.
    public var status: PathStatus? {
        if obstacles.count > 0 { return .requiresMaintenance }
        let total = ratings.reduce(0, +)
        guard total > 0 else { return nil }
        var running = 0
        for (i, n) in ratings.enumerated() {
            running += n
            if 2 * running >= total { return PathStatus.allCases[i] }
        }
        return nil
    }

    /// Whether the link's bounding box meets `box` (PostGIS's `&&`).
    func meets(_ box: BoundingBox) -> Bool {
        max(from.latitude, to.latitude) >= box.south && min(from.latitude, to.latitude) <= box.north
            && max(from.longitude, to.longitude) >= box.west && min(from.longitude, to.longitude) <= box.east
    }

    /// Public (in GeoJSON, on the page and in routes) only with `minRiders` riders behind
    /// it: with one, a reader could follow that rider's rides.
    public func isPublic(minRiders: Int) -> Bool { riders >= minRiders }
}

/// The corroborated obstacles a link carries: how many, and the sum of their confidences
/// (what a route's score charges for them).
public struct LinkObstacles: Sendable, Equatable, Codable {
    public var count: Int
    public var confidence: Double
    public init(count: Int = 0, confidence: Double = 0) { (self.count, self.confidence) = (count, confidence) }

    /// Each corroborated obstacle belongs to its nearest link within `radiusMeters` (the
    /// corroboration radius: a spot's reports spread that far), ties by link id; an
    /// obstacle with no link that near (a rider marked it off the confirmed paths) is on none.
    /// The one rule for the riders' links (`MapMaintainer`, stored) and the streets' pieces
    /// (`StreetLinks`, when the graph is built).
    public static func assign(_ obstacles: [ReportedObstacle], to links: [NetworkLink], radiusMeters: Double) -> [Int64: LinkObstacles] {
        let corroborated = obstacles.filter(\.corroborated)
        guard !corroborated.isEmpty, !links.isEmpty else { return [:] }
        // Each link listed in the cells its box meets: a street's straight piece runs up to
        // kilometres, and a grid by midpoints would need cells that wide.
        let index = SegmentIndex(links.map { [$0.from, $0.to] })
        var out: [Int64: LinkObstacles] = [:]
        for o in corroborated {
            var best: (distance: Double, id: Int64)?
            // A metre's slack: the window is in degrees, the distance measured on a local plane.
            for ref in index.candidates(near: o.position, within: radiusMeters + 1) {
                let l = links[ref.line]
                guard let d = Geodesic.distance(from: o.position, toPath: [l.from, l.to]), d <= radiusMeters else { continue }
                if best.map({ (d, l.id) < ($0.distance, $0.id) }) ?? true { best = (d, l.id) }
            }
            guard let id = best?.id else { continue }
            out[id, default: LinkObstacles()].count += 1
            out[id, default: LinkObstacles()].confidence += o.confidence
        }
        return out
    }
}
