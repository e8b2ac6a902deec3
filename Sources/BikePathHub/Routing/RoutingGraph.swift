import BikePathCore
import Foundation
import HeapModule
import Synchronization

/// The public network in a search box, as a route search asks it: where an end may join
/// it, and the cheapest path between the ends. Both stores answer `KeptGraph.View` (the
/// whole network read once and kept, A* here); `LoadedGraph` is one box's links alone (the
/// tests' reference); `PgRoutingGraph` asks PostGIS and pgRouting (the benchmark's comparison).
public protocol RoutingGraph: Sendable {
    /// The points near `point` where a route may join the network, nearest first (`JoiningPoints`).
    func joiningPoints(near point: Coordinate) async throws -> [JoiningPoint]
    /// The network's point nearest `point` in the search box, however far (what a refusal says).
    func nearestPoint(to point: Coordinate) async throws -> JoiningPoint?
    /// The cheapest path from any of `starts` to any of `ends`: each end costs its `access`,
    /// each link `RouteRule.cost` times its penalty (1 when absent), the part of a link
    /// between a joining point and the node the path leaves it by (or between two points
    /// on one link) its share; nil when no start is connected to an end.
    func cheapestPath(from starts: [JoiningPoint], to ends: [JoiningPoint], penalties: [Int64: Double]) async throws -> JoinedPath?
}

/// The cheapest path found: where it joins, the node it leaves the start's link by (nil
/// when it runs along that one link straight to the end's point), the whole links after
/// it in riding order, and where it leaves the network.
public struct JoinedPath: Sendable, Equatable {
    public var start: JoiningPoint
    public var leaves: Int64?
    public var links: [NetworkLink]
    public var end: JoiningPoint
}

extension RouteRule {
    /// The cost of the part of `point`'s link between the point and `node` (one of its ends).
    public func cost(from point: JoiningPoint, to node: Int64, penalty: Double = 1) -> Double {
        cost(point.link) * point.share(toward: node) * penalty
    }

    /// The cost of riding from `s` to `e` along their one link (whether it may: `JoiningPoint.allows(to:)`).
    public func cost(along s: JoiningPoint, to e: JoiningPoint, penalty: Double = 1) -> Double {
        cost(s.link) * abs(s.fraction - e.fraction) * penalty
    }
}

/// Public links (and the streets' pieces, `StreetLinks`) held in memory with Dijkstra over
/// them, each link ridden only the ways it `allows`: the tests' reference, and the
/// contraction `KeptGraph` folds its chains by.
public struct LoadedGraph: RoutingGraph {
    public let links: [NetworkLink]
    let rule: RouteRule
    private let adjacent: [Int64: [Int]]
    /// The nodes in id order: chains are found in a fixed order, so ties break the same way every time.
    private let nodes: [Int64]
    /// Each link's index in `links`, by id (penalties name links by id).
    private let index: [Int64: Int]
    /// The contraction for a search's ends, made by its first search and reused by the
    /// others (a route search runs up to k × `RouteRule.attemptsPerRoute` with its ends).
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

    public func joiningPoints(near point: Coordinate) async throws -> [JoiningPoint] {
        JoiningPoints.among(links, near: point, reachMeters: rule.reachMeters)
    }

    public func nearestPoint(to point: Coordinate) async throws -> JoiningPoint? { JoiningPoints.nearest(links, to: point) }

    public func cheapestPath(from starts: [JoiningPoint], to ends: [JoiningPoint], penalties: [Int64: Double]) async throws -> JoinedPath? {
        let keep = Set((starts + ends).flatMap { [$0.link.key.from, $0.link.key.to] })
        // A contraction keeping more nodes serves too: the alternatives' searches keep only
        // the best route's two joining links, of the first search's candidates.
        let graph =
            contractions.byKeptNodes.withLock { $0.first { keep.isSubset(of: $0.key) }?.value }
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
        /// How a node was reached: from a start's point along its link, or by a chain.
        enum Step { case start(Int), chain(Int) }
        var best: [Int64: Double] = [:], via: [Int64: Step] = [:]
        var heap = Heap<Entry>()
        for (i, s) in starts.enumerated() {
            // From the point to `node`: leaving the link's other end's way.
            for node in [s.link.key.from, s.link.key.to] where s.link.allows(leaving: s.link.otherEnd(node)) {
                let cost = rule.access(s) + rule.cost(from: s, to: node, penalty: penalties[s.link.id] ?? 1)
                guard cost < best[node] ?? .infinity else { continue }
                (best[node], via[node]) = (cost, .start(i))
                heap.insert(Entry(cost: cost, node: node))
            }
        }
        // The cheapest way out so far: by a node (nil: along one link from a start to an end).
        var out: (cost: Double, start: Int?, node: Int64?, end: Int)?
        for (i, s) in starts.enumerated() {
            for (j, e) in ends.enumerated() where s.link.id == e.link.id && s.allows(to: e) {
                let cost = rule.access(s) + rule.access(e) + rule.cost(along: s, to: e, penalty: penalties[s.link.id] ?? 1)
                if cost < out?.cost ?? .infinity { out = (cost, i, nil, j) }
            }
        }
        var exits: [Int64: [Int]] = [:]
        for (j, e) in ends.enumerated() {
            // From `node` onto the end's link toward its point.
            for node in Set([e.link.key.from, e.link.key.to]) where e.link.allows(leaving: node) { exits[node, default: []].append(j) }
        }
        while let e = heap.popMin(), e.cost < out?.cost ?? .infinity {
            guard e.cost <= best[e.node] ?? .infinity else { continue }  // a stale entry
            for j in exits[e.node] ?? [] {
                let cost = e.cost + rule.cost(from: ends[j], to: e.node, penalty: penalties[ends[j].link.id] ?? 1) + rule.access(ends[j])
                if cost < out?.cost ?? .infinity { out = (cost, nil, e.node, j) }
            }
            for c in graph.at[e.node] ?? [] {
                let chain = graph.chains[c]
                guard chain.from == e.node ? chain.forward : chain.backward else { continue }  // a one-way street
                let next = chain.from == e.node ? chain.to : chain.from
                let cost = e.cost + costs[c]
                if cost < best[next] ?? .infinity {
                    (best[next], via[next]) = (cost, .chain(c))
                    heap.insert(Entry(cost: cost, node: next))
                }
            }
        }
        guard let out else { return nil }
        guard var node = out.node else { return JoinedPath(start: starts[out.start!], leaves: nil, links: [], end: ends[out.end]) }
        var path: [NetworkLink] = []
        while case .chain(let c) = via[node] {
            let chain = graph.chains[c]
            // The chain's links run from `from` to `to`: walking back from `to`, take them reversed.
            let links = chain.links.map { self.links[$0] }
            path += chain.to == node ? links.reversed() : links
            node = chain.to == node ? chain.from : chain.to
        }
        guard case .start(let i) = via[node] else { return nil }
        return JoinedPath(start: starts[i], leaves: node, links: path.reversed(), end: ends[out.end])
    }

    /// A chain of links through nodes where exactly two links meet, between two kept nodes.
    /// `forward`: a bicycle may ride it from `from` to `to`; `backward`: the other way.
    struct Chain {
        var from: Int64
        var to: Int64
        var links: [Int]
        var cost: Double
        var forward = true, backward = true
    }

    /// The graph with every node where exactly two links meet folded into a chain, except
    /// `keep` (the ends of the links the ends join): on streets snapped every 12 m a 200 m block is
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
                    let next = links[link].otherEnd(here)
                    chain.forward = chain.forward && links[link].allows(leaving: here)
                    chain.backward = chain.backward && links[link].allows(leaving: next)
                    here = next
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
