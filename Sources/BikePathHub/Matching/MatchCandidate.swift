import BikePathCore

/// A way a fix may lie on a street: the point of an edge nearest the fix, and one way along
/// the edge a bicycle may ride it (GraphHopper's directed candidate: a transition then
/// leaves the edge the way the rider went and enters the next one the way it is ridden, so
/// a side street's candidate at a junction is no short there-and-back unless it pays a U-turn).
struct MatchCandidate: Sendable, Equatable {
    var edge: Int
    /// Metres along the edge from its first point.
    var offset: Double
    /// Metres from the fix, geodesic.
    var distance: Double
    /// Along the edge's node order (from `key.from` to `key.to`).
    var forward: Bool
}

extension StreetGraph {
    /// The nearest point of each edge within `parameters.radius` of `position`, the
    /// `maxCandidates` nearest edges kept (ties by edge key), each once per way a bicycle
    /// may ride it, in edge order, forward first.
    func candidates(near position: Coordinate, _ parameters: MatchParameters) -> [MatchCandidate] {
        var best: [Int: MatchCandidate] = [:]
        let p = grid.plane(position)
        for segment in grid.segments(near: position, within: parameters.radius) {
            let (e, i) = (Int(segment.edge), Int(segment.index))
            let (a, b) = (grid.plane(edges[e].points[i]), grid.plane(edges[e].points[i + 1]))
            let t = p.share(onSegment: a, b)
            let offset = offsets[e][i] + t * (offsets[e][i + 1] - offsets[e][i])
            let distance = Geodesic.distance(position, Geodesic.interpolate(edges[e].points[i], edges[e].points[i + 1], t))
            if distance <= parameters.radius, best[e].map({ distance < $0.distance }) ?? true {
                best[e] = MatchCandidate(edge: e, offset: offset, distance: distance, forward: true)
            }
        }
        let nearest = best.values.sorted { ($0.distance, $0.edge) < ($1.distance, $1.edge) }.prefix(parameters.maxCandidates)
        return nearest.sorted { $0.edge < $1.edge }.flatMap { c in
            [true, false].filter { allows(c.edge, forward: $0) }.map {
                MatchCandidate(edge: c.edge, offset: c.offset, distance: c.distance, forward: $0)
            }
        }
    }
}
