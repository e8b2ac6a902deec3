import BikePathCore

/// A street a fix may lie on: the point of that edge nearest the fix (N&K's candidate).
struct MatchCandidate: Sendable, Equatable {
    var edge: Int
    /// Metres along the edge from its first point.
    var offset: Double
    /// Metres from the fix, geodesic.
    var distance: Double
}

extension StreetGraph {
    /// The nearest point of each edge within `parameters.radius` of `position`, the
    /// `maxCandidates` nearest kept (ties by edge key), returned in edge order.
    func candidates(near position: Coordinate, _ parameters: MatchParameters) -> [MatchCandidate] {
        var best: [Int: MatchCandidate] = [:]
        let p = grid.plane(position)
        for segment in grid.segments(near: position, within: parameters.radius) {
            let (e, i) = (Int(segment.edge), Int(segment.index))
            let (a, b) = (grid.plane(edges[e].points[i]), grid.plane(edges[e].points[i + 1]))
            let d = b - a, length2 = (d * d).sum()
            let t = length2 > 0 ? max(0, min(1, ((p - a) * d).sum() / length2)) : 0
            let offset = offsets[e][i] + t * (offsets[e][i + 1] - offsets[e][i])
            let distance = Geodesic.distance(position, Geodesic.interpolate(edges[e].points[i], edges[e].points[i + 1], t))
            if distance <= parameters.radius, best[e].map({ distance < $0.distance }) ?? true {
                best[e] = MatchCandidate(edge: e, offset: offset, distance: distance)
            }
        }
        let nearest = best.values.sorted { ($0.distance, $0.edge) < ($1.distance, $1.edge) }.prefix(parameters.maxCandidates)
        return nearest.sorted { $0.edge < $1.edge }
    }
}
