import BikePathCore
import Foundation
import HeapModule

/// The public network in a search box, as a route search asks it: where an end may join
/// it, and the cheapest path between the ends. SQLite's is `LoadedGraph` (the links read
/// once, Dijkstra here); PostgreSQL's asks PostGIS and pgRouting, the links staying in
/// the database.
public protocol RoutingGraph: Sendable {
    /// The nearest end of each public link near `point`, nearest first (`JoiningNodes`).
    func joiningNodes(near point: Coordinate) async throws -> [NearestNode]
    /// The public node nearest `point` in the search box, however far (what a refusal says).
    func nearestNode(to point: Coordinate) async throws -> NearestNode?
    /// The cheapest path from any of `starts` to any of `ends`: each costs its `access`
    /// to reach, each link `RouteRule.cost` times its penalty (1 when absent); nil when
    /// no start is connected to an end.
    func cheapestPath(from starts: [NearestNode], to ends: [NearestNode], penalties: [Int64: Double]) async throws -> JoinedPath?
}

/// A node where a route's end may join the network, and how far from the end it is.
public struct NearestNode: Sendable, Equatable {
    public var node: Int64
    public var position: Coordinate
    public var distanceMeters: Double
}

/// The cheapest path found: where it joins, its links in riding order, where it leaves.
public struct JoinedPath: Sendable, Equatable {
    public var start: NearestNode
    public var links: [NetworkLink]
    public var end: NearestNode
}

/// Which nodes an end may join at. The nearest node alone may lie on a fragment that
/// joins nothing (a trip's privacy-trimmed end, another rider's side street), so an end
/// may join any of a few nodes within reach, spread apart, and the search picks the
/// cheapest, reaching a node at `RouteRule.access`.
public enum JoiningNodes {
    /// At most this many nodes per end, at least `spacingMeters` apart.
    public static let limit = 8
    public static let spacingMeters = 40.0
    /// The links read around an end to find them.
    public static let nearestLinks = 40

    static func among(_ links: [NetworkLink], near point: Coordinate, reachMeters: Double) -> [NearestNode] {
        let ends = links.flatMap { [NearestNode(node: $0.key.from, position: $0.from, distanceMeters: Geodesic.distance(point, $0.from)),
                                    NearestNode(node: $0.key.to, position: $0.to, distanceMeters: Geodesic.distance(point, $0.to))] }
            .filter { $0.distanceMeters <= reachMeters }
            .sorted { ($0.distanceMeters, $0.node) < ($1.distanceMeters, $1.node) }
        var kept: [NearestNode] = []
        for e in ends where kept.count < limit && !kept.contains(where: { Geodesic.distance($0.position, e.position) < spacingMeters }) {
            kept.append(e)
        }
        return kept
    }

    /// The nearest public node (for the distance a refusal states), however far.
    static func nearest(_ links: [NetworkLink], to point: Coordinate) -> NearestNode? {
        links.flatMap { [NearestNode(node: $0.key.from, position: $0.from, distanceMeters: Geodesic.distance(point, $0.from)),
                         NearestNode(node: $0.key.to, position: $0.to, distanceMeters: Geodesic.distance(point, $0.to))] }
            .min { ($0.distanceMeters, $0.node) < ($1.distanceMeters, $1.node) }
    }
}

/// Public links held in memory with Dijkstra over them: SQLite's routing graph, and the
/// tests' reference.
public struct LoadedGraph: RoutingGraph {
    public let links: [NetworkLink]
    let rule: RouteRule
    private let adjacent: [Int64: [Int]]

    public init(links: [NetworkLink], rule: RouteRule = RouteRule()) {
        self.links = links.sorted { $0.id < $1.id }
        self.rule = rule
        var adjacent: [Int64: [Int]] = [:]
        for (i, l) in self.links.enumerated() {
            adjacent[l.key.from, default: []].append(i)
            adjacent[l.key.to, default: []].append(i)
        }
        self.adjacent = adjacent
    }

    public func joiningNodes(near point: Coordinate) async throws -> [NearestNode] {
        JoiningNodes.among(links, near: point, reachMeters: rule.reachMeters)
    }

    public func nearestNode(to point: Coordinate) async throws -> NearestNode? { JoiningNodes.nearest(links, to: point) }

    public func cheapestPath(from starts: [NearestNode], to ends: [NearestNode], penalties: [Int64: Double]) async throws -> JoinedPath? {
        struct Entry: Comparable {
            var cost: Double
            var node: Int64
            static func < (a: Entry, b: Entry) -> Bool { (a.cost, a.node) < (b.cost, b.node) }
        }
        let sink = Int64.min  // reached from each end node at its access cost
        var best: [Int64: Double] = [:], via: [Int64: Int] = [:], start: [Int64: NearestNode] = [:]
        var leftAt: NearestNode?
        var heap = Heap<Entry>()
        for s in starts where rule.access(s) < best[s.node] ?? .infinity {
            best[s.node] = rule.access(s)
            start[s.node] = s
            heap.insert(Entry(cost: rule.access(s), node: s.node))
        }
        let exits = Dictionary(ends.map { ($0.node, $0) }, uniquingKeysWith: { a, _ in a })
        while let e = heap.popMin() {
            if e.node == sink { break }
            guard e.cost <= best[e.node] ?? .infinity else { continue }  // a stale entry
            if let exit = exits[e.node], e.cost + rule.access(exit) < best[sink] ?? .infinity {
                best[sink] = e.cost + rule.access(exit)
                leftAt = exit
                heap.insert(Entry(cost: best[sink]!, node: sink))
            }
            for i in adjacent[e.node] ?? [] {
                let l = links[i]
                let next = l.key.from == e.node ? l.key.to : l.key.from
                let cost = e.cost + rule.cost(l) * (penalties[l.id] ?? 1)
                if cost < best[next] ?? .infinity {
                    best[next] = cost
                    via[next] = i
                    heap.insert(Entry(cost: cost, node: next))
                }
            }
        }
        guard let exit = leftAt else { return nil }
        var path: [NetworkLink] = []
        var node = exit.node
        while start[node] == nil || via[node] != nil && best[node]! < rule.access(start[node]!), let i = via[node] {
            path.append(links[i])
            node = links[i].key.from == node ? links[i].key.to : links[i].key.from
        }
        return JoinedPath(start: start[node]!, links: path.reversed(), end: exit)
    }
}
