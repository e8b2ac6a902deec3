import HeapModule

/// How the street graph joins two directed candidates, found by a Dijkstra search bounded by
/// a length.
struct MatchRoute: Sendable {
    enum Path: Sendable {
        /// Along the one edge both lie on, the one way both ride it.
        case along
        /// A turn back on the one edge both lie on, from the source's way to the target's.
        case uTurn
        /// Off the source's edge at the end it rides to, over whole edges, onto the target's
        /// edge at the end it is ridden from.
        case via(arcs: [StreetGraph.Arc])
    }
    /// The metres ridden.
    var length: Double
    var path: Path
    var turnsBack: Bool {
        if case .uTurn = path { return true }
        return false
    }
}

extension StreetGraph {
    private struct Queued: Comparable {
        var cost: Double
        var node: Int
        static func < (a: Queued, b: Queued) -> Bool { (a.cost, a.node) < (b.cost, b.node) }
    }

    private enum Step {
        case leave
        case arc(Arc, from: Int)
    }

    /// Whether a rider who came to `node` along `edge` can only go back along it (a dead end,
    /// or every other street there a one-way towards it): the only place a route turns back.
    func turnsBackOnly(at node: Int, arrivedBy edge: Int) -> Bool { outgoing[node].allSatisfy { $0.edge == edge } }

    /// The shortest route from `source` to each target no longer than `limit` (nil where none
    /// is), each edge ridden only the ways a bicycle may, turning back only at a dead end
    /// (`turnsBackOnly`) or as a `.uTurn` on the source's own edge, whose cost `uTurn` is
    /// added to its length when routes are compared. A target on the source's edge, its way,
    /// behind it by at most `noise` metres is the fix's noise: length 0. Ties go to the route
    /// along the edge, then to the U-turn, then to the lower node index.
    func routes(from source: MatchCandidate, to targets: [MatchCandidate], limit: Double, noise: Double, uTurn: Double) -> [MatchRoute?] {
        var settled: [Int: (cost: Double, step: Step)] = [:]
        var tentative: [Int: (cost: Double, step: Step)] = [:]
        var queue = Heap<Queued>()
        func offer(_ node: Int, _ cost: Double, _ step: Step) {
            guard cost <= limit, settled[node] == nil, tentative[node].map({ cost < $0.cost }) ?? true else { return }
            tentative[node] = (cost, step)
            queue.insert(Queued(cost: cost, node: node))
        }
        func arrivedBy(_ node: Int) -> Int {
            if case .arc(let arc, _) = settled[node]!.step { return arc.edge }
            return source.edge
        }
        let (e, s) = (source.edge, source.offset)
        offer(source.forward ? ends[e].to : ends[e].from, source.forward ? length(e) - s : s, .leave)
        while let next = queue.popMin() {
            guard settled[next.node] == nil, let found = tentative[next.node], found.cost == next.cost else { continue }
            settled[next.node] = found
            let came = arrivedBy(next.node)
            let back = turnsBackOnly(at: next.node, arrivedBy: came)
            for arc in outgoing[next.node] where arc.edge != came || back {
                offer(arc.to, next.cost + length(arc.edge), .arc(arc, from: next.node))
            }
        }
        return targets.map { target in
            let f = target.edge
            var best: (cost: Double, route: MatchRoute)?
            func consider(_ length: Double, extra: Double = 0, _ path: () -> MatchRoute.Path) {
                if length <= limit, best.map({ length + extra < $0.cost }) ?? true {
                    best = (length + extra, MatchRoute(length: length, path: path()))
                }
            }
            if f == e && target.forward == source.forward {
                let progress = source.forward ? target.offset - s : s - target.offset
                if progress >= 0 {
                    consider(progress) { .along }
                } else if -progress <= noise {
                    consider(0) { .along }  // the rider went on by little; the fix fell back
                }
            }
            if f == e && target.forward != source.forward { consider(abs(target.offset - s), extra: uTurn) { .uTurn } }
            let entry = target.forward ? ends[f].from : ends[f].to
            if let reached = settled[entry], arrivedBy(entry) != f || turnsBackOnly(at: entry, arrivedBy: f) {
                consider(reached.cost + (target.forward ? target.offset : length(f) - target.offset)) { path(to: entry, settled) }
            }
            return best?.route
        }
    }

    private func path(to node: Int, _ settled: [Int: (cost: Double, step: Step)]) -> MatchRoute.Path {
        var arcs: [Arc] = []
        var at = node
        while case .arc(let arc, let from) = settled[at]!.step {
            arcs.append(arc)
            at = from
        }
        return .via(arcs: arcs.reversed())
    }
}
