import BikePathCore
import Foundation
import HeapModule

/// The public network in a search box, as a route search asks it: where to join it, and
/// the cheapest path between two of its nodes. SQLite's is `LoadedGraph` (the links read
/// once, Dijkstra here); PostgreSQL's asks pgRouting, the links staying in the database.
public protocol RoutingGraph: Sendable {
    /// The public node nearest `point`: the nearer end of the nearest public link.
    func nearestNode(to point: Coordinate) async throws -> NearestNode?
    /// The cheapest path from `from` to `to` (links in riding order), each link costing
    /// `RouteRule.cost` times its penalty (1 when absent); nil when they are not connected.
    func cheapestPath(from: Int64, to: Int64, penalties: [Int64: Double]) async throws -> [NetworkLink]?
}

public struct NearestNode: Sendable, Equatable {
    public var node: Int64
    public var position: Coordinate
    public var distanceMeters: Double
}

extension NearestNode {
    /// The nearer end of the link nearest `point` among `links` (ties by link id).
    static func among(_ links: [NetworkLink], to point: Coordinate) -> NearestNode? {
        let nearest = links.min { a, b in
            let (da, db) = (Geodesic.distance(from: point, toPath: [a.from, a.to]) ?? .infinity,
                            Geodesic.distance(from: point, toPath: [b.from, b.to]) ?? .infinity)
            return (da, a.id) < (db, b.id)
        }
        guard let l = nearest else { return nil }
        let (df, dt) = (Geodesic.distance(point, l.from), Geodesic.distance(point, l.to))
        return df <= dt ? NearestNode(node: l.key.from, position: l.from, distanceMeters: df)
            : NearestNode(node: l.key.to, position: l.to, distanceMeters: dt)
    }
}

/// Public links held in memory with Dijkstra over them: SQLite's routing graph, and the
/// benchmark's reference.
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

    public func nearestNode(to point: Coordinate) async throws -> NearestNode? { NearestNode.among(links, to: point) }

    public func cheapestPath(from: Int64, to: Int64, penalties: [Int64: Double]) async throws -> [NetworkLink]? {
        struct Entry: Comparable {
            var cost: Double
            var node: Int64
            static func < (a: Entry, b: Entry) -> Bool { (a.cost, a.node) < (b.cost, b.node) }
        }
        var best: [Int64: Double] = [from: 0]
        var via: [Int64: Int] = [:]
        var heap = Heap<Entry>([Entry(cost: 0, node: from)])
        while let e = heap.popMin() {
            if e.node == to { break }
            guard e.cost <= best[e.node] ?? .infinity else { continue }  // a stale entry
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
        guard best[to] != nil else { return nil }
        var path: [NetworkLink] = []
        var node = to
        while node != from, let i = via[node] {
            path.append(links[i])
            node = links[i].key.from == node ? links[i].key.to : links[i].key.from
        }
        return path.reversed()
    }
}
