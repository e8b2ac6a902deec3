/// Lays the routes between a run's chosen candidates end to end as edge pieces in riding
/// order, merging consecutive stretches of one edge ridden one way.
struct PieceBuilder {
    struct Stretch {
        var edge: Int
        var forward: Bool
        var from: Double
        var to: Double
    }

    let graph: StreetGraph
    let noise: Double
    private(set) var stretches: [Stretch] = []
    /// Where the rider is: the last candidate, or the farthest point reached on its edge its
    /// way when a later fix fell back by noise.
    private var at: MatchCandidate

    init(graph: StreetGraph, noise: Double, start: MatchCandidate) { (self.graph, self.noise, self.at) = (graph, noise, start) }

    mutating func add(_ route: MatchRoute, to target: MatchCandidate) {
        switch route.path {
        case .along:
            // Back by no more than the noise: the rider did not turn, the fix wandered.
            guard at.forward ? target.offset > at.offset : target.offset < at.offset else { return }
            ride(at.edge, forward: at.forward, from: at.offset, to: target.offset)
        case .uTurn:
            // On to the target and back there, or back from where the rider was.
            ride(at.edge, forward: target.offset > at.offset, from: at.offset, to: target.offset)
        case .via(let arcs):
            ride(at.edge, forward: at.forward, from: at.offset, to: at.forward ? graph.length(at.edge) : 0)
            for arc in arcs {
                ride(
                    arc.edge, forward: arc.forward, from: arc.forward ? 0 : graph.length(arc.edge),
                    to: arc.forward ? graph.length(arc.edge) : 0)
            }
            ride(target.edge, forward: target.forward, from: target.forward ? 0 : graph.length(target.edge), to: target.offset)
        }
        at = target
    }

    private mutating func ride(_ edge: Int, forward: Bool, from: Double, to: Double) {
        if let last = stretches.last, last.edge == edge, last.forward == forward, abs(last.to - from) <= noise {
            stretches[stretches.count - 1].to = forward ? max(last.to, to) : min(last.to, to)
        } else if to != from {
            stretches.append(Stretch(edge: edge, forward: forward, from: from, to: to))
        }
    }

    func pieces() -> [StreetMatch.Piece] {
        stretches.compactMap { s in
            let length = graph.length(s.edge)
            guard s.to != s.from else { return nil }
            return StreetMatch.Piece(
                key: graph.edges[s.edge].key, way: s.forward ? .forward : .backward, fromMeters: s.from, toMeters: s.to,
                fraction: length > 0 ? min(1, abs(s.to - s.from) / length) : 0)
        }
    }
}
