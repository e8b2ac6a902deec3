import BikePathCore
import Foundation
import HeapModule
import Synchronization

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
        // A window of degrees, a tenth wider than the reach, before any geodesic: a search
        // box holds up to ~100,000 links, and measuring both ends of each was a tenth of a
        // SQLite route search.
        let dLat = 1.1 * reachMeters / 111_320, dLon = dLat / max(cos((abs(point.latitude) + dLat) * .pi / 180), 0.01)
        func near(_ c: Coordinate) -> Bool { abs(c.latitude - point.latitude) <= dLat && abs(c.longitude - point.longitude) <= dLon }
        let ends = links.filter { near($0.from) || near($0.to) }.flatMap {
            [
                NearestNode(node: $0.key.from, position: $0.from, distanceMeters: Geodesic.distance(point, $0.from)),
                NearestNode(node: $0.key.to, position: $0.to, distanceMeters: Geodesic.distance(point, $0.to)),
            ]
        }
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
        links.flatMap {
            [
                NearestNode(node: $0.key.from, position: $0.from, distanceMeters: Geodesic.distance(point, $0.from)),
                NearestNode(node: $0.key.to, position: $0.to, distanceMeters: Geodesic.distance(point, $0.to)),
            ]
        }
        .min { ($0.distanceMeters, $0.node) < ($1.distanceMeters, $1.node) }
    }
}

/// Public links held in memory with Dijkstra over them: SQLite's routing graph, and the
/// tests' reference.
public struct LoadedGraph: RoutingGraph {
    public let links: [NetworkLink]
    let rule: RouteRule
    private let adjacent: [Int64: [Int]]
    /// The nodes in id order: chains are found in a fixed order, so ties break the same way every time.
    private let nodes: [Int64]
    /// Each link's index in `links`, by id (penalties name links by id).
    private let index: [Int64: Int]
    /// The contraction for a search's ends, made by its first search and reused by the
    /// others (a route search runs up to k × `RouteRule.attemptsPerRoute` with the same ends).
    private let contractions = Contractions()

    public init(links: [NetworkLink], rule: RouteRule = RouteRule()) {
        self.links = links.sorted { $0.id < $1.id }
        self.rule = rule
        var adjacent: [Int64: [Int]] = [:]
        for (i, l) in self.links.enumerated() {
            adjacent[l.key.from, default: []].append(i)
            adjacent[l.key.to, default: []].append(i)
        }
        self.adjacent = adjacent
        nodes = adjacent.keys.sorted()
        index = Dictionary(self.links.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    public func joiningNodes(near point: Coordinate) async throws -> [NearestNode] {
        JoiningNodes.among(links, near: point, reachMeters: rule.reachMeters)
    }

    public func nearestNode(to point: Coordinate) async throws -> NearestNode? { JoiningNodes.nearest(links, to: point) }

    public func cheapestPath(from starts: [NearestNode], to ends: [NearestNode], penalties: [Int64: Double]) async throws -> JoinedPath? {
        let keep = Set(starts.map(\.node) + ends.map(\.node))
        let graph =
            contractions.byKeptNodes.withLock { $0[keep] }
            ?? {
                let made = contracted(keeping: keep)
                contractions.byKeptNodes.withLock { $0[keep] = made }
                return made
            }()
        // A penalty makes its link, and so the chain holding it, dearer by the difference.
        var costs = graph.chains.map(\.cost)
        for (id, factor) in penalties {
            guard let i = index[id], let c = graph.chainOf[i] else { continue }
            costs[c] += rule.cost(links[i]) * (factor - 1)
        }
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
            for c in graph.at[e.node] ?? [] {
                let chain = graph.chains[c]
                let next = chain.from == e.node ? chain.to : chain.from
                let cost = e.cost + costs[c]
                if cost < best[next] ?? .infinity {
                    best[next] = cost
                    via[next] = c
                    heap.insert(Entry(cost: cost, node: next))
                }
            }
        }
        guard let exit = leftAt else { return nil }
        var path: [NetworkLink] = []
        var node = exit.node
        while start[node] == nil || via[node] != nil && best[node]! < rule.access(start[node]!), let c = via[node] {
            let chain = graph.chains[c]
            // The chain's links run from `from` to `to`: walking back from `to`, take them reversed.
            let links = chain.links.map { self.links[$0] }
            path += chain.to == node ? links.reversed() : links
            node = chain.to == node ? chain.from : chain.to
        }
        return JoinedPath(start: start[node]!, links: path.reversed(), end: exit)
    }

    /// A chain of links through nodes where exactly two links meet, between two kept nodes.
    struct Chain { var from: Int64; var to: Int64; var links: [Int]; var cost: Double }

    /// The graph with every node where exactly two links meet folded into a chain, except
    /// `keep` (the ends' joining nodes): on streets snapped every 12 m a 200 m block is
    /// one chain of ~15 links, so Dijkstra handles a fifteenth of the nodes. Made in one
    /// pass over the links, each chain costing its links' `RouteRule.cost`.
    struct Contraction {
        var chains: [Chain] = []
        var at: [Int64: [Int]] = [:]
        /// The chain each link (by index in `links`) is part of.
        var chainOf: [Int?]
    }

    /// A class, so that the graph stays a copyable value that shares one cache.
    final class Contractions: Sendable {
        let byKeptNodes = Mutex<[Set<Int64>: Contraction]>([:])
    }

    func contracted(keeping keep: Set<Int64>) -> Contraction {
        func kept(_ n: Int64) -> Bool { keep.contains(n) || adjacent[n]?.count != 2 }
        var graph = Contraction(chainOf: [Int?](repeating: nil, count: links.count))
        for node in nodes where kept(node) {
            for first in adjacent[node]! where graph.chainOf[first] == nil {
                var chain = Chain(from: node, to: node, links: [], cost: 0)
                var (link, here) = (first, node)
                while true {
                    graph.chainOf[link] = graph.chains.count
                    chain.links.append(link)
                    chain.cost += rule.cost(links[link])
                    here = links[link].key.from == here ? links[link].key.to : links[link].key.from
                    if kept(here) { break }
                    guard let next = adjacent[here]?.first(where: { graph.chainOf[$0] == nil }) else { break }
                    link = next
                }
                chain.to = here  // the links run from `from` to `to`
                graph.at[chain.from, default: []].append(graph.chains.count)
                if chain.to != chain.from { graph.at[chain.to, default: []].append(graph.chains.count) }
                graph.chains.append(chain)
            }
        }
        return graph
    }
}
