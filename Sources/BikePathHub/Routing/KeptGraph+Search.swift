import BikePathCore
import Foundation
import HeapModule

extension KeptGraph {
    /// The kept graph as one search sees it: the links its box would have read from the
    /// store. A pure value over the shared graph; every search makes its own.
    public struct View: RoutingGraph {
        public let graph: KeptGraph
        let box: BoundingBox

        public func joiningPoints(near point: Coordinate) async throws -> [JoiningPoint] {
            let reach = graph.rule.reachMeters
            return JoiningPoints.among(graph.links(near: point, within: reach, in: box), near: point, reachMeters: reach)
        }

        public func nearestPoint(to point: Coordinate) async throws -> JoiningPoint? {
            JoiningPoints.nearest(graph.links.indices.filter { graph.linkReach[$0].isMet(by: box) }.map { graph.links[$0] }, to: point)
        }

        public func cheapestPath(from starts: [JoiningPoint], to ends: [JoiningPoint], penalties: [Int64: Double]) async throws
            -> JoinedPath?
        {
            graph.cheapestPath(from: starts, to: ends, penalties: penalties, in: box)
        }
    }

    /// A way between an end's point and a junction of its chain, or between two points on
    /// one chain: its cost, the node it leaves the start's link by, the whole links in
    /// riding order.
    struct Stretch {
        var cost: Double
        var leaves: Int64?
        var links: [Int]
    }

    /// `LoadedGraph.cheapestPath`'s answer on the kept graph, by A*: the ends are virtual
    /// nodes on their links, reaching their chains' junctions along the chain (`stretch`);
    /// the junctions' bound is the great-circle distance to the nearest end's point at
    /// `minFactor` a metre plus its access (admissible: every link costs at least that).
    func cheapestPath(from starts: [JoiningPoint], to ends: [JoiningPoint], penalties: [Int64: Double], in box: BoundingBox)
        -> JoinedPath?
    {
        func cost(_ l: Int) -> Double { rule.cost(links[l]) * (penalties[links[l].id] ?? 1) }
        func penalty(_ p: JoiningPoint) -> Double { penalties[p.link.id] ?? 1 }
        // A penalty makes its link, and so the chain holding it, dearer by the difference.
        var extra: [Int32: Double] = [:]
        for (id, factor) in penalties {
            guard let i = index[id] else { continue }
            extra[chainOf[Int(i)], default: 0] += rule.cost(links[Int(i)]) * (factor - 1)
        }
        /// Along chain c over its links `ks` in that order, forward (from `chainNodes[c][k]`
        /// to `[k + 1]`) or back; nil when a link is out of the box or one-way against.
        func along(_ c: Int, _ ks: [Int], forward: Bool) -> (cost: Double, links: [Int])? {
            let (chain, nodes) = (chains[c], chainNodes[c])
            var sum = 0.0
            for k in ks {
                let l = chain.links[k]
                guard linkReach[l].isMet(by: box), links[l].allows(leaving: nodes[forward ? k : k + 1]) else { return nil }
                sum += cost(l)
            }
            return (sum, ks.map { chain.links[$0] })
        }
        func position(_ p: JoiningPoint) -> (chain: Int, place: Int)? {
            index[p.link.id].map { (Int(chainOf[Int($0)]), Int(place[Int($0)])) }
        }
        // From each start's point to its chain's junctions: (junction, start, stretch).
        var seeds: [(junction: Int, start: Int, stretch: Stretch)] = []
        for (i, s) in starts.enumerated() {
            guard let (c, p) = position(s) else { continue }
            let nodes = chainNodes[c], count = chains[c].links.count
            for forward in [false, true] {
                let leaves = nodes[forward ? p + 1 : p]
                guard s.link.allows(leaving: s.link.otherEnd(leaves)),
                    let rest = along(c, forward ? Array(p + 1..<count) : Array((0..<p).reversed()), forward: forward)
                else { continue }
                let cost = rule.access(s) + rule.cost(from: s, to: leaves, penalty: penalty(s)) + rest.cost
                let junction = Int(junctionIndex[forward ? nodes[count] : nodes[0]]!)
                seeds.append((junction, i, Stretch(cost: cost, leaves: leaves, links: rest.links)))
            }
        }
        // From each chain's junctions to each end's point: by junction, (end, stretch).
        var exits: [Int: [(end: Int, stretch: Stretch)]] = [:]
        for (j, e) in ends.enumerated() {
            guard let (c, q) = position(e) else { continue }
            let nodes = chainNodes[c], count = chains[c].links.count
            for forward in [true, false] {
                let enters = nodes[forward ? q : q + 1]
                guard e.link.allows(leaving: enters),
                    let way = along(c, forward ? Array(0..<q) : Array((q + 1..<count).reversed()), forward: forward)
                else { continue }
                let cost = way.cost + rule.cost(from: e, to: enters, penalty: penalty(e)) + rule.access(e)
                exits[Int(junctionIndex[forward ? nodes[0] : nodes[count]]!), default: []].append(
                    (j, Stretch(cost: cost, leaves: nil, links: way.links)))
            }
        }
        // The cheapest way out so far, and how: along one chain from a start to an end, or by a junction.
        var out: (cost: Double, start: Int, end: Int, stretch: Stretch, junction: Int?)?
        for (i, s) in starts.enumerated() {
            guard let (c, p) = position(s) else { continue }
            for (j, e) in ends.enumerated() {
                guard let (c2, q) = position(e), c2 == c else { continue }
                var found: Stretch?
                if p == q {
                    if s.link.id == e.link.id && s.allows(to: e) {
                        found = Stretch(cost: rule.cost(along: s, to: e, penalty: penalty(s)), leaves: nil, links: [])
                    }
                } else {
                    let forward = p < q, nodes = chainNodes[c]
                    let (leaves, enters) = forward ? (nodes[p + 1], nodes[q]) : (nodes[p], nodes[q + 1])
                    if s.link.allows(leaving: s.link.otherEnd(leaves)), e.link.allows(leaving: enters),
                        let way = along(c, forward ? Array(p + 1..<q) : Array((q + 1..<p).reversed()), forward: forward)
                    {
                        let ends = rule.cost(from: s, to: leaves, penalty: penalty(s)) + rule.cost(from: e, to: enters, penalty: penalty(e))
                        found = Stretch(cost: way.cost + ends, leaves: leaves, links: way.links)
                    }
                }
                guard var found else { continue }
                found.cost += rule.access(s) + rule.access(e)
                if found.cost < out?.cost ?? .infinity { out = (found.cost, i, j, found, nil) }
            }
        }
        // A*: entries by (bound, junction), so that ties break by node id as `LoadedGraph`'s do.
        struct Entry: Comparable {
            var bound: Double
            var cost: Double
            var node: Int
            static func < (a: Entry, b: Entry) -> Bool { (a.bound, a.node) < (b.bound, b.node) }
        }
        let endPoints = ends.map { ($0.position, rule.access($0)) }
        let scale = minFactor * 0.999  // below the factor: rounding never makes the bound exceed a cost
        func bound(_ n: Int) -> Double { endPoints.map { Geodesic.distance(junctionPositions[n], $0.0) * scale + $0.1 }.min() ?? 0 }
        var best: [Int: Double] = [:], via: [Int: Int32] = [:]  // via: a chain, or -1 - a seed
        var heap = Heap<Entry>()
        for (n, seed) in seeds.enumerated() where seed.stretch.cost < best[seed.junction] ?? .infinity {
            (best[seed.junction], via[seed.junction]) = (seed.stretch.cost, Int32(-1 - n))
            heap.insert(Entry(bound: seed.stretch.cost + bound(seed.junction), cost: seed.stretch.cost, node: seed.junction))
        }
        while let e = heap.popMin(), e.bound < out?.cost ?? .infinity {
            guard e.cost <= best[e.node] ?? .infinity else { continue }  // a stale entry
            for (j, stretch) in exits[e.node] ?? [] where e.cost + stretch.cost < out?.cost ?? .infinity {
                out = (e.cost + stretch.cost, -1, j, stretch, e.node)
            }
            let here = junctions[e.node]
            for c in at[e.node] {
                let chain = chains[Int(c)]
                guard chain.from == here ? chain.forward : chain.backward, chainReach[Int(c)].isMet(by: box) else { continue }
                let next = Int(junctionIndex[chain.from == here ? chain.to : chain.from]!)
                let cost = e.cost + chain.cost + (extra[c] ?? 0)
                if cost < best[next] ?? .infinity {
                    (best[next], via[next]) = (cost, c)
                    heap.insert(Entry(bound: cost + bound(next), cost: cost, node: next))
                }
            }
        }
        guard let out else { return nil }
        guard var node = out.junction else {
            return JoinedPath(
                start: starts[out.start], leaves: out.stretch.leaves, links: out.stretch.links.map { links[$0] }, end: ends[out.end])
        }
        var path: [[Int]] = [out.stretch.links]  // backwards, from the end
        while let c = via[node], c >= 0 {
            let chain = chains[Int(c)], at = junctions[node]
            path.append(chain.to == at ? chain.links : chain.links.reversed())
            node = Int(junctionIndex[chain.to == at ? chain.from : chain.to]!)
        }
        guard let s = via[node] else { return nil }
        let seed = seeds[Int(-1 - s)]
        path.append(seed.stretch.links)
        return JoinedPath(
            start: starts[seed.start], leaves: seed.stretch.leaves, links: path.reversed().flatMap { $0 }.map { links[$0] },
            end: ends[out.end])
    }
}
