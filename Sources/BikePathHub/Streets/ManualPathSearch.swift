import BikePathCore
import HeapModule

/// Where a point lies along the nearest of some edges: metres along it from its first point,
/// and how far off.
struct EdgeSpot {
    var edge: Int
    var along: Double
    var meters: Double
}

extension StreetGraph {
    /// The nearest point to `point` on any of `among`, however far; ties go to the lower key.
    /// (`candidates(near:)` finds every edge within a radius through the grid; a manual path's
    /// ends are judged against the named streets alone, and a refusal says how far off they are.)
    func nearest(_ point: Coordinate, among: Set<Int>) -> EdgeSpot? {
        var best: EdgeSpot?
        for e in among.sorted() {
            let points = edges[e].points
            for i in 0..<(points.count - 1) {
                let t = Geodesic.nearestShare(of: point, onSegment: points[i], points[i + 1])
                let d = Geodesic.distance(point, Geodesic.interpolate(points[i], points[i + 1], t))
                if best.map({ d < $0.meters }) ?? true {
                    best = EdgeSpot(edge: e, along: offsets[e][i] + t * (offsets[e][i + 1] - offsets[e][i]), meters: d)
                }
            }
        }
        return best
    }

    /// Every arc at each junction, each way along every edge whether or not a bicycle may ride
    /// it (`outgoing` holds only those it may): a manual path rides against a one-way where no
    /// other way leads on. In edge order, forward first.
    func everyArc() -> [[Arc]] {
        var arcs = [[Arc]](repeating: [], count: outgoing.count)
        for (e, ends) in ends.enumerated() {
            arcs[ends.from].append(Arc(edge: e, forward: true, to: ends.to))
            arcs[ends.to].append(Arc(edge: e, forward: false, to: ends.from))
        }
        return arcs
    }
}

/// Dijkstra over (node, how many named streets are behind) states: on street i a rider rides
/// edges named as street i, or takes an edge named as street i + 1 and is on that one, so
/// every named street is ridden, in order, for at least one stretch.
struct LayeredSearch {
    let graph: StreetGraph
    let layers: [Set<Int>]
    let start: EdgeSpot
    let end: EdgeSpot
    var oneWays: Bool
    /// Every arc at each junction (`StreetGraph.everyArc`): `outgoing` would do with one-ways
    /// kept, but not for the search that ignores them.
    private let arcs: [[StreetGraph.Arc]]
    /// The furthest street (index into `layers`) any search reached.
    private(set) var deepestLayer = 0

    init(graph: StreetGraph, layers: [Set<Int>], start: EdgeSpot, end: EdgeSpot, oneWays: Bool) {
        (self.graph, self.layers, self.start, self.end, self.oneWays) = (graph, layers, start, end, oneWays)
        arcs = graph.everyArc()
    }

    private struct Step {
        var from: Int?  // the state before, nil at the start
        var edge: Int
        var forward: Bool
    }

    private struct Queued: Comparable {
        var cost: Double
        var state: Int
        static func < (a: Queued, b: Queued) -> Bool { (a.cost, a.state) < (b.cost, b.state) }
    }

    /// The shortest path's pieces, or nil when none follows the streets to the end.
    mutating func run() -> [StreetMatch.Piece]? {
        let count = layers.count, last = count - 1
        var cost = [Double](repeating: .infinity, count: arcs.count * count)
        var step = [Step?](repeating: nil, count: cost.count)
        var queue = Heap<Queued>()
        func push(_ state: Int, _ c: Double, _ s: Step) {
            guard c < cost[state] else { return }
            (cost[state], step[state]) = (c, s)
            queue.insert(Queued(cost: c, state: state))
        }
        let s = start.edge, sEnds = graph.ends[s], sLength = graph.length(s)
        if may(s, forward: true) { push(sEnds.to * count, sLength - start.along, Step(from: nil, edge: s, forward: true)) }
        if may(s, forward: false) { push(sEnds.from * count, start.along, Step(from: nil, edge: s, forward: false)) }

        // The best way found so far: its cost and its last step (onto the end's edge).
        var best: (cost: Double, before: Int?, forward: Bool)?
        let e = end.edge
        if count == 1 && e == s && may(s, forward: end.along >= start.along) {
            best = (abs(end.along - start.along), nil, end.along >= start.along)
        }
        while let next = queue.popMin() {
            guard next.cost == cost[next.state] else { continue }
            if let b = best, next.cost >= b.cost { break }
            let node = next.state / count, layer = next.state % count
            deepestLayer = max(deepestLayer, layer)
            // Onto the end's edge toward the end: on the last street already, or entering it here.
            for forward in [true, false] where (forward ? graph.ends[e].from : graph.ends[e].to) == node {
                guard layer == last || (layer == last - 1 && layers[last].contains(e)), may(e, forward: forward) else { continue }
                let c = next.cost + (forward ? end.along : graph.length(e) - end.along)
                if best.map({ c < $0.cost }) ?? true { best = (c, next.state, forward) }
            }
            for arc in arcs[node] where may(arc.edge, forward: arc.forward) {
                let c = next.cost + graph.length(arc.edge), step = Step(from: next.state, edge: arc.edge, forward: arc.forward)
                if layers[layer].contains(arc.edge) { push(arc.to * count + layer, c, step) }
                if layer < last && layers[layer + 1].contains(arc.edge) { push(arc.to * count + layer + 1, c, step) }
            }
        }
        guard let found = best else { return nil }
        return pieces(ending: found, steps: step)
    }

    private func may(_ edge: Int, forward: Bool) -> Bool { !oneWays || graph.allows(edge, forward: forward) }

    /// The pieces in riding order: the start's part of its edge, whole edges, the end's part.
    private func pieces(ending: (cost: Double, before: Int?, forward: Bool), steps: [Step?]) -> [StreetMatch.Piece] {
        guard let before = ending.before else {
            return [piece(start.edge, from: start.along, to: end.along, forward: ending.forward)].compactMap { $0 }
        }
        var whole: [(edge: Int, forward: Bool)] = []
        var state: Int? = before
        var first: Step?
        while let s = state, let st = steps[s] {
            if st.from == nil { first = st } else { whole.append((st.edge, st.forward)) }
            state = st.from
        }
        var out: [StreetMatch.Piece?] = []
        if let f = first { out.append(piece(f.edge, from: start.along, to: f.forward ? graph.length(f.edge) : 0, forward: f.forward)) }
        for (edge, forward) in whole.reversed() {
            out.append(piece(edge, from: forward ? 0 : graph.length(edge), to: forward ? graph.length(edge) : 0, forward: forward))
        }
        let e = end.edge
        out.append(piece(e, from: ending.forward ? 0 : graph.length(e), to: end.along, forward: ending.forward))
        return out.compactMap { $0 }
    }

    /// A piece of `edge` between two distances along it; nil when it has no length.
    private func piece(_ edge: Int, from: Double, to: Double, forward: Bool) -> StreetMatch.Piece? {
        let length = graph.length(edge)
        guard abs(to - from) > 0.01 else { return nil }
        return StreetMatch.Piece(
            key: graph.edges[edge].key, way: forward ? .forward : .backward, fromMeters: from, toMeters: to,
            fraction: length > 0 ? min(1, abs(to - from) / length) : 0)
    }
}
