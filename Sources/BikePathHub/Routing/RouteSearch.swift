import BikePathCore
import Foundation

/// Routes between two places over the public community network (BBP R11–R14; docs/hub.md,
/// "Routes"): up to k meaningfully different alternatives, ranked by `RouteRule`'s score.
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
                "no community path within \(Int(reach)) m of the \(end): the nearest is \(Int(nearest.rounded())) m away"
            case .noPathNear(let end, nil, let reach):
                "no community path within \(Int(reach)) m of the \(end), nor anywhere near it"
            case .noRoute: "origin and destination are near community paths, but none joins them"
            case .tooManyLinks(let limit):
                "the box around origin and destination holds more than \(limit) community path links, more than one search may read; ask for closer ends"
            }
        }
    }

    /// The routes from `origin` to `destination`, best first: the first is the cheapest by
    /// the score; each other shares at most `maxOverlap` of its length with every route before it.
    public func routes(
        from origin: Coordinate, to destination: Coordinate, k: Int,
        on graph: any RoutingGraph
    ) async throws -> [Route] {
        let starts = try await join(origin, "origin", graph), ends = try await join(destination, "destination", graph)
        var kept: [Route] = []
        var penalties: [Int64: Double] = [:]
        for _ in 0..<(k * rule.attemptsPerRoute) where kept.count < k {
            guard let found = try await graph.cheapestPath(from: starts, to: ends, penalties: penalties) else { break }
            let route = Route(found, rule: rule)
            if kept.allSatisfy({ route.overlap(with: $0) <= rule.maxOverlap }) { kept.append(route) }
            for l in found.links { penalties[l.id, default: 1] *= rule.penalty }
            if found.links.isEmpty { break }  // origin and destination join at one node
        }
        guard !kept.isEmpty else { throw Problem.noRoute }
        return kept.sorted { $0.score < $1.score }
    }

    private func join(_ point: Coordinate, _ end: String, _ graph: any RoutingGraph) async throws -> [NearestNode] {
        let nodes = try await graph.joiningNodes(near: point)
        guard !nodes.isEmpty else {
            throw Problem.noPathNear(
                end: end, nearestMeters: try await graph.nearestNode(to: point)?.distanceMeters, reachMeters: rule.reachMeters)
        }
        return nodes
    }
}

/// One route: its links in riding order and what the map says along it.
public struct Route: Sendable, Equatable {
    public var links: [NetworkLink]
    /// Node positions in riding order, from the joining node at the origin.
    public var path: [Coordinate]
    public var lengthMeters: Double
    public var score: Double
    /// Metres of each status along it (nil: no trip rated those links). The score also
    /// counts the ends' access (`RouteRule.access`); the length is the network's part.
    public var statusMeters: [PathStatus?: Double]

    init(_ found: JoinedPath, rule: RouteRule) {
        links = found.links
        var path = [found.start.position], node = found.start.node
        for l in links {
            node = l.key.from == node ? l.key.to : l.key.from
            path.append(node == l.key.to ? l.to : l.from)
        }
        self.path = path
        lengthMeters = links.map(\.lengthMeters).reduce(0, +)
        score = links.map(rule.cost).reduce(0, +) + rule.access(found.start) + rule.access(found.end)
        statusMeters = links.reduce(into: [:]) { $0[$1.status, default: 0] += $1.lengthMeters }
    }

    /// The share of this route's length (or the other's, if shorter) on links both ride.
    public func overlap(with other: Route) -> Double {
        let theirs = Set(other.links.map(\.id))
        let shared = links.filter { theirs.contains($0.id) }.map(\.lengthMeters).reduce(0, +)
        let shorter = min(lengthMeters, other.lengthMeters)
        return shorter > 0 ? shared / shorter : 1
    }
}
