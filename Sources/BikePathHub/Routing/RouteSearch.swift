import BikePathCore
import Foundation

/// Routes between two places over the public community network and OpenStreetMap's streets
/// (BBP R11–R14; docs/hub.md, "Routes"): up to k meaningfully different alternatives,
/// ranked by `RouteRule`'s score.
public struct RouteSearch: Sendable {
    public var rule: RouteRule
    public var minRiders: Int

    public init(rule: RouteRule = RouteRule(), minRiders: Int = CorroborationRule().minRiders) {
        (self.rule, self.minRiders) = (rule, minRiders)
    }

    /// Why no route was answered.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        /// No public path within `RouteRule.reachMeters` of that end; `nearestMeters` is
        /// the nearest one in the search box, nil when there is none.
        case noPathNear(end: String, nearestMeters: Double?, reachMeters: Double)
        /// Both ends are near the network, but no public path joins them within the search box.
        case noRoute
        /// The search box holds more than `limit` public links (`RouteRule.maxLinks`).
        case tooManyLinks(limit: Int)

        public var description: String {
            switch self {
            case .noPathNear(let end, let nearest?, let reach):
                "no community path or street within \(Int(reach)) m of the \(end): the nearest is \(Int(nearest.rounded())) m away"
            case .noPathNear(let end, nil, let reach):
                "no community path or street within \(Int(reach)) m of the \(end), nor anywhere near it"
            case .noRoute: "origin and destination are near community paths or streets, but none joins them"
            case .tooManyLinks(let limit):
                "the box around origin and destination holds more than \(limit) links of community paths and streets, more than one search may read; ask for closer ends"
            }
        }
    }

    /// The routes from `origin` to `destination`, best first: the first is the cheapest by
    /// the score; each other joins the network at the same two points as the first and
    /// shares at most `maxOverlap` of its length with every route before it. Fewer than `k`
    /// when no more such routes are found.
    public func routes(
        from origin: Coordinate, to destination: Coordinate, k: Int,
        on graph: any RoutingGraph
    ) async throws -> [Route] {
        var starts = try await join(origin, "origin", graph), ends = try await join(destination, "destination", graph)
        var kept: [Route] = []
        var penalties: [Int64: Double] = [:]
        for _ in 0..<(k * rule.attemptsPerRoute) where kept.count < k {
            guard let found = try await graph.cheapestPath(from: starts, to: ends, penalties: penalties) else { break }
            // Alternatives start and end where the best does: an alternative from another
            // point joined neither end of the trip it was offered for.
            (starts, ends) = ([found.start], [found.end])
            let route = Route(found, from: origin, to: destination, rule: rule)
            if kept.allSatisfy({ route.overlap(with: $0) <= rule.maxOverlap }) { kept.append(route) }
            for piece in route.pieces { penalties[piece.link.id, default: 1] *= rule.penalty }
            if route.pieces.isEmpty { break }  // origin and destination join at one point
        }
        guard !kept.isEmpty else { throw Problem.noRoute }
        return kept.sorted { $0.score < $1.score }
    }

    private func join(_ point: Coordinate, _ end: String, _ graph: any RoutingGraph) async throws -> [JoiningPoint] {
        let points = try await graph.joiningPoints(near: point)
        guard !points.isEmpty else {
            throw Problem.noPathNear(
                end: end, nearestMeters: try await graph.nearestPoint(to: point)?.distanceMeters, reachMeters: rule.reachMeters)
        }
        return points
    }
}

/// A stretch of one link a route rides: from one share of the way along it to another
/// (0 at `link.from`, 1 at `link.to`), in riding order. Whole links run 0 to 1 or 1 to 0;
/// the parts at a route's ends start or stop at the joining points.
public struct RoutePiece: Sendable, Equatable {
    public var link: NetworkLink
    public var from: Double
    public var to: Double

    public var lengthMeters: Double { link.lengthMeters * abs(to - from) }
    /// Where the piece ends, on the ground.
    var endPosition: Coordinate { Geodesic.interpolate(link.from, link.to, to) }
}

/// One route: the access leg from the asked origin to its joining point, the pieces of
/// links in riding order, and the access leg from the last joining point to the destination.
public struct Route: Sendable, Equatable {
    public var origin: Coordinate
    public var start: JoiningPoint
    public var pieces: [RoutePiece]
    public var end: JoiningPoint
    public var destination: Coordinate
    /// The network's part in riding order, from the start's joining point to the end's.
    public var path: [Coordinate]
    /// The network's part (the access legs are `start`'s and `end`'s `distanceMeters`).
    public var lengthMeters: Double
    /// The pieces' costs plus both access legs' (`RouteRule.access`).
    public var score: Double
    /// Metres of each status along the network's part (nil: no trip rated those links).
    public var statusMeters: [PathStatus?: Double]

    /// The links ridden, whole or in part, in riding order.
    public var links: [NetworkLink] { pieces.map(\.link) }

    init(_ found: JoinedPath, from origin: Coordinate, to destination: Coordinate, rule: RouteRule) {
        (self.origin, start, end, self.destination) = (origin, found.start, found.end, destination)
        var pieces: [RoutePiece] = []
        if let leaves = found.leaves {
            pieces.append(RoutePiece(link: start.link, from: start.fraction, to: leaves == start.link.key.from ? 0 : 1))
            var node = leaves
            for l in found.links {
                let forward = l.key.from == node
                pieces.append(RoutePiece(link: l, from: forward ? 0 : 1, to: forward ? 1 : 0))
                node = forward ? l.key.to : l.key.from
            }
            pieces.append(RoutePiece(link: end.link, from: node == end.link.key.from ? 0 : 1, to: end.fraction))
        } else {
            pieces.append(RoutePiece(link: start.link, from: start.fraction, to: end.fraction))
        }
        self.pieces = pieces.filter { $0.from != $0.to }
        path = [start.position] + self.pieces.map(\.endPosition)
        lengthMeters = self.pieces.map(\.lengthMeters).reduce(0, +)
        score =
            self.pieces.map { rule.cost($0.link) * abs($0.to - $0.from) }.reduce(0, +) + rule.access(found.start)
            + rule.access(found.end)
        statusMeters = self.pieces.reduce(into: [:]) { $0[$1.link.status, default: 0] += $1.lengthMeters }
    }

    /// The share of this route's length (or the other's, if shorter) on stretches both ride.
    public func overlap(with other: Route) -> Double {
        let theirs = Dictionary(grouping: other.pieces, by: \.link.id)
        let shared = pieces.map { p in
            (theirs[p.link.id] ?? []).map { q in
                max(0, min(max(p.from, p.to), max(q.from, q.to)) - max(min(p.from, p.to), min(q.from, q.to))) * p.link.lengthMeters
            }
            .reduce(0, +)
        }
        .reduce(0, +)
        let shorter = min(lengthMeters, other.lengthMeters)
        return shorter > 0 ? shared / shorter : 1
    }
}
