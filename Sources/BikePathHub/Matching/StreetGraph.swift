import BikePathCore

/// The streets as the matcher walks them: junctions as nodes, each edge an arc along its
/// node order where a bicycle may ride that way (`StreetEdge.direction`) and one against it
/// where it may ride back, and a grid of the edges' segments for the streets near a fix.
/// Built once for a set of streets and never changed: one graph serves any number of rides.
public struct StreetGraph: Sendable {
    struct Arc: Sendable {
        var edge: Int
        /// Along the edge's node order (from `key.from` to `key.to`).
        var forward: Bool
        var to: Int
    }

    /// The edges in key order: an edge's index is its rank, so ties broken by index are by key.
    let edges: [StreetEdge]
    /// Each edge's first and last node, as node indices.
    let ends: [(from: Int, to: Int)]
    /// Each edge's metres from its first point to each point (the last is its length).
    let offsets: [[Double]]
    /// The arcs leaving each node, in edge order.
    let outgoing: [[Arc]]
    let grid: SegmentGrid

    public init(edges unsorted: [StreetEdge]) {
        let edges = unsorted.filter { $0.points.count >= 2 }.sorted { $0.key < $1.key }
        let nodeIDs = Array(Set(edges.flatMap { [$0.key.from, $0.key.to] })).sorted()
        let node = Dictionary(uniqueKeysWithValues: nodeIDs.enumerated().map { ($1, $0) })
        var outgoing = [[Arc]](repeating: [], count: nodeIDs.count)
        var ends: [(from: Int, to: Int)] = []
        for (e, edge) in edges.enumerated() {
            let (a, b) = (node[edge.key.from]!, node[edge.key.to]!)
            ends.append((a, b))
            if edge.direction != .backward { outgoing[a].append(Arc(edge: e, forward: true, to: b)) }
            if edge.direction != .forward { outgoing[b].append(Arc(edge: e, forward: false, to: a)) }
        }
        self.edges = edges
        self.ends = ends
        self.outgoing = outgoing
        offsets = edges.map(\.offsets)
        grid = SegmentGrid(edges)
    }

    public var edgeCount: Int { edges.count }

    func length(_ edge: Int) -> Double { offsets[edge][offsets[edge].count - 1] }

    func allows(_ edge: Int, forward: Bool) -> Bool { edges[edge].direction != (forward ? .backward : .forward) }

    /// The point `metres` along an edge from its first point.
    func point(_ edge: Int, at metres: Double) -> Coordinate {
        let o = offsets[edge], points = edges[edge].points
        var i = 0
        while i < o.count - 2 && o[i + 1] < metres { i += 1 }
        let span = o[i + 1] - o[i]
        return Geodesic.interpolate(points[i], points[i + 1], span > 0 ? max(0, min(1, (metres - o[i]) / span)) : 0)
    }
}
