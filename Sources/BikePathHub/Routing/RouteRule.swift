import BikePathCore
import Foundation

/// How routes are scored and searched (docs/hub.md, "Routes"). A route's score is the sum
/// of its links' costs: metres, stretched by the riders' verdict on the surface and
/// charged for the obstacles they corroborated. Lower is better; a route on optimal,
/// obstacle-free paths scores its length.
public struct RouteRule: Sendable, Equatable {
    /// Metres a metre of each status costs, best first (`PathStatus.allCases`). A rider
    /// takes a 15 % longer way to stay on smooth asphalt rather than a medium surface, a
    /// third longer to avoid a sufficient one, twice as long to avoid one needing repair.
    public var statusFactors: [Double] = [1.0, 1.15, 1.35, 2.0]
    /// No trip rated it: between medium and sufficient (riders prefer a known surface).
    public var unknownFactor = 1.25
    /// Metres charged per corroborated obstacle, times its confidence: a pothole with
    /// confidence 0.8 is worth a 120 m detour.
    public var obstacleMeters = 150.0
    /// Origin and destination join the network at a point of a public link within this
    /// distance (`JoiningPoints`): a short walk or ride on a street nobody confirmed.
    public var reachMeters = 300.0
    /// The search reads the public links in the box around origin and destination,
    /// widened by this share of their distance (at least `minMarginMeters`): a detour
    /// longer than that is no alternative a rider would take.
    public var marginShare = 0.3
    public var minMarginMeters = 1_000.0
    /// Alternatives by the penalty method: each route found makes its links this much
    /// dearer for the next search, and a new route is kept only if it shares at most
    /// `maxOverlap` of its length with each kept one (GraphHopper's alternatives share ~70 %
    /// at most; Yen's k shortest paths differ by a block).
    public var penalty = 1.6
    public var maxOverlap = 0.7
    /// Searches per requested route before giving up on finding a different one.
    public var attemptsPerRoute = 3
    public static let maxRoutes = 5
    /// Links a search may see in its box (`KeptGraph.linkCount`), and so the nodes each of
    /// its k × `attemptsPerRoute` passes can settle (at most one more than the links of a
    /// connected graph). 50,000 links are ~600 km of riders' paths at 12 m a link; a search
    /// over a box of 151,723 (a 2,000 km city crossed corner to corner) held a core for 4.5 s
    /// (docs/performance.md, "Hub under hostile work"). Beyond it the search is refused
    /// before it starts (400 `too-many-links`).
    public var maxLinks = 50_000

    public init() {}

    /// The cost of riding `link` (either way it may be ridden): the riders' verdict where they
    /// rated it, else the street's tags (`streetFactor`), else `unknownFactor`; plus its
    /// corroborated obstacles, which outweigh any tag (150 m each is more than the dearest
    /// tag's surcharge on a 12 m link).
    public func cost(_ link: NetworkLink) -> Double {
        let factor =
            link.ratingStatus.map { statusFactors[PathStatus.allCases.firstIndex(of: $0)!] } ?? link.street.map(streetFactor)
            ?? unknownFactor
        return link.lengthMeters * factor + obstacleMeters * link.obstacles.confidence
    }

    /// What a metre of straight line from a route's end to its joining point costs: twice
    /// (the way along streets is up to √2 longer than the straight line, and unrated), so
    /// that joining a farther link never cuts a corner through a block; an end joins a
    /// farther link only when the nearer ones lead nowhere or far round.
    public var accessFactor = 2.0

    /// The cost of reaching the network at `point` from the route's end.
    public func access(_ point: JoiningPoint) -> Double { point.distanceMeters * accessFactor }

    /// The box a search between `a` and `b` reads.
    public func searchBox(_ a: Coordinate, _ b: Coordinate) -> BoundingBox {
        BoundingBox(around: [a, b])!.widened(byMeters: max(minMarginMeters, marginShare * Geodesic.distance(a, b)) + reachMeters)
    }
}

extension NetworkLink {
    /// The status its ratings give, without its obstacles (they are charged on their own).
    var ratingStatus: PathStatus? {
        var bare = self
        bare.obstacles = LinkObstacles()
        return bare.status
    }
}
