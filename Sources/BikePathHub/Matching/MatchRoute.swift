import HeapModule

/// How the street graph joins two candidates, found by a Dijkstra search bounded by a length.
struct MatchRoute: Sendable {
    enum Path: Sendable {
        /// Along the one edge both lie on.
        case along
        /// Off the source's edge at one end, over whole edges, onto the target's edge at one end.
        case via(leaveForward: Bool, arcs: [StreetGraph.Arc], enterForward: Bool)
    }
    var length: Double
    var path: Path
}

extension StreetGraph {
    private struct Queued: Comparable {
        var cost: Double
        var node: Int
        static func < (a: Queued, b: Queued) -> Bool { (a.cost, a.node) < (b.cost, b.node) }
    }

    private enum Step {
        case leave(forward: Bool)
        case arc(Arc, from: Int)
    }

    /// The shortest route from `source` to each target no longer than `limit` (nil where none
    /// is), riding each edge only the ways a bicycle may. A step back along the source's own
    /// edge of at most `noise` metres is the fix's noise, of length 0 (not a U-turn, nor a
    /// ride against a one-way). Ties go to the route along the edge, then to the lower node index.
    func routes(from source: MatchCandidate, to targets: [MatchCandidate], limit: Double, noise: Double) -> [MatchRoute?] {
        var settled: [Int: (cost: Double, step: Step)] = [:]
        var tentative: [Int: (cost: Double, step: Step)] = [:]
        var queue = Heap<Queued>()
        func offer(_ node: Int, _ cost: Double, _ step: Step) {
            guard cost <= limit, settled[node] == nil, tentative[node].map({ cost < $0.cost }) ?? true else { return }
            tentative[node] = (cost, step)
            queue.insert(Queued(cost: cost, node: node))
        }
        let (e, s) = (source.edge, source.offset)
        if allows(e, forward: false) { offer(ends[e].from, s, .leave(forward: false)) }
        if allows(e, forward: true) { offer(ends[e].to, length(e) - s, .leave(forward: true)) }
        while let next = queue.popMin() {
            guard settled[next.node] == nil, let found = tentative[next.node], found.cost == next.cost else { continue }
            settled[next.node] = found
            for arc in outgoing[next.node] { offer(arc.to, next.cost + length(arc.edge), .arc(arc, from: next.node)) }
        }
        return targets.map { target in
            let f = target.edge
            var best: MatchRoute?
            func consider(_ length: Double, _ path: () -> MatchRoute.Path) {
                if length <= limit, best.map({ length < $0.length }) ?? true { best = MatchRoute(length: length, path: path()) }
            }
            if f == e {
                let delta = target.offset - s
                if delta >= 0 ? allows(e, forward: true) : -delta > noise && allows(e, forward: false) {
                    consider(abs(delta)) { .along }
                } else if -delta <= noise {
                    consider(0) { .along }  // the rider went on by little; the fix fell back
                }
            }
            for forward in [true, false] where allows(f, forward: forward) {
                let entry = forward ? ends[f].from : ends[f].to
                guard let reached = settled[entry] else { continue }
                consider(reached.cost + (forward ? target.offset : length(f) - target.offset)) {
                    path(to: entry, settled, enterForward: forward)
                }
            }
            return best
        }
    }

    private func path(to node: Int, _ settled: [Int: (cost: Double, step: Step)], enterForward: Bool) -> MatchRoute.Path {
        var arcs: [Arc] = []
        var at = node
        while true {
            switch settled[at]!.step {
            case .leave(let forward):
                return .via(leaveForward: forward, arcs: arcs.reversed(), enterForward: enterForward)
            case .arc(let arc, let from):
                arcs.append(arc)
                at = from
            }
        }
    }
}
