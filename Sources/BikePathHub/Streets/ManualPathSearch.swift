import BikePathCore
import HeapModule

/// The streets as `ManualPath` walks them: junctions (OSM nodes) as nodes, each edge between
/// its two end nodes, and where a point lies along the nearest edge.
struct NamedStreets {
    /// A point projected onto an edge: metres along it from its first point, and how far off.
    struct Spot {
        var edge: Int
        var along: Double
        var meters: Double
    }

    let edges: [StreetEdge]
    let ends: [(from: Int, to: Int)]
    /// Each edge's metres from its first point to each point (the last is its length).
    let offsets: [[Double]]
    /// The edges at each node, in edge (key) order.
    let incident: [[Int]]

    init(edges: [StreetEdge]) {
        var node: [Int64: Int] = [:]
        var incident: [[Int]] = []
        func index(_ id: Int64) -> Int {
            if let i = node[id] { return i }
            node[id] = incident.count
            incident.append([])
            return incident.count - 1
        }
        var ends: [(from: Int, to: Int)] = []
        for (e, edge) in edges.enumerated() {
            let (a, b) = (index(edge.key.from), index(edge.key.to))
            ends.append((a, b))
            incident[a].append(e)
            if b != a { incident[b].append(e) }
        }
        self.edges = edges
        self.ends = ends
        self.incident = incident
        offsets = edges.map(\.offsets)
    }

    var nodeCount: Int { incident.count }

    func length(_ edge: Int) -> Double { offsets[edge][offsets[edge].count - 1] }

    /// Whether a bicycle may ride `edge` along its node order (`forward`) or against it.
    func allows(_ edge: Int, forward: Bool) -> Bool { edges[edge].direction != (forward ? .backward : .forward) }

    /// The nearest point to `point` on any of `among`; ties go to the lower key.
    func nearest(_ point: Coordinate, among: Set<Int>) -> Spot? {
        var best: Spot?
        for e in among.sorted() {
            let points = edges[e].points
            for i in 0..<(points.count - 1) {
                let t = Geodesic.nearestShare(of: point, onSegment: points[i], points[i + 1])
                let d = Geodesic.distance(point, Geodesic.interpolate(points[i], points[i + 1], t))
                if best.map({ d < $0.meters }) ?? true {
                    best = Spot(edge: e, along: offsets[e][i] + t * (offsets[e][i + 1] - offsets[e][i]), meters: d)
                }
            }
        }
        return best
    }
}

/// Dijkstra over (node, how many named streets are behind) states: on street i a rider rides
/// edges named as street i, or takes an edge named as street i + 1 and is on that one, so
/// every named street is ridden, in order, for at least one stretch.
struct LayeredSearch {
    let graph: NamedStreets
    let layers: [Set<Int>]
    let start: NamedStreets.Spot
    let end: NamedStreets.Spot
    var oneWays: Bool
    /// The furthest street (index into `layers`) any search reached.
    private(set) var deepestLayer = 0

    init(graph: NamedStreets, layers: [Set<Int>], start: NamedStreets.Spot, end: NamedStreets.Spot, oneWays: Bool) {
        (self.graph, self.layers, self.start, self.end, self.oneWays) = (graph, layers, start, end, oneWays)
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
        var cost = [Double](repeating: .infinity, count: graph.nodeCount * count)
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
            for edge in graph.incident[node] {
                for forward in [true, false] where (forward ? graph.ends[edge].from : graph.ends[edge].to) == node {
                    guard may(edge, forward: forward) else { continue }
                    let to = forward ? graph.ends[edge].to : graph.ends[edge].from, c = next.cost + graph.length(edge)
                    if layers[layer].contains(edge) { push(to * count + layer, c, Step(from: next.state, edge: edge, forward: forward)) }
                    if layer < last && layers[layer + 1].contains(edge) {
                        push(to * count + layer + 1, c, Step(from: next.state, edge: edge, forward: forward))
                    }
                }
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
