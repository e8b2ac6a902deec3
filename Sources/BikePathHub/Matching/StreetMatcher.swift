import BikePathCore

/// Matches a ride's GNSS fixes to the streets with a hidden-Markov model (Newson & Krumm
/// 2009; as OSRM's, Valhalla's and GraphHopper's matchers do): each fix's states are the
/// streets within `radius`, each one way a bicycle may ride it; the emission is Gaussian in
/// the fix's distance to the street (σ); the transition exponential in |route − straight
/// distance| between consecutive fixes (β), the route found on the street graph from one
/// state's way to the next's, one-ways respected, a U-turn penalized; Viterbi in log space picks
/// the likeliest sequence. Nearest-street snapping jumps between parallel streets; the
/// route term keeps a ride on the street it can ride continuously.
///
/// Where no transition is possible (no candidate within `radius`, or no route within the
/// detour bound: a park path, a gap), the chain ends and starts again at the next fix with
/// candidates; the fixes between stay unmatched, for the community network. Pure and
/// deterministic: no clock, no I/O; ties go to the lower edge key.
public struct StreetMatcher: Sendable {
    public let graph: StreetGraph
    public let parameters: MatchParameters

    public init(graph: StreetGraph, parameters: MatchParameters = MatchParameters()) { (self.graph, self.parameters) = (graph, parameters) }

    /// The chain being decoded: per kept fix its index, candidates and best predecessors.
    private struct Chain {
        var fixes: [Int] = []
        var candidates: [[MatchCandidate]] = []
        var back: [[Int]] = []
        /// The route length bound of each step (to the fix at the same index; 0 for the first).
        var limits: [Double] = []
        /// The best log-probability of a path ending at each of the last fix's candidates.
        var score: [Double] = []
    }

    public func match(_ fixes: [MatchFix]) throws(MatchInputError) -> StreetMatch {
        for (i, fix) in fixes.enumerated() {
            let p = fix.position
            guard (-90...90).contains(p.latitude), (-180...180).contains(p.longitude) else { throw .invalidPosition(index: i) }
            if i > 0, fix.time < fixes[i - 1].time { throw .timeGoesBack(index: i) }
        }
        var runs: [StreetMatch.Run] = []
        var chain = Chain()
        for i in thinned(fixes) {
            let candidates = graph.candidates(near: fixes[i].position, parameters)
            let emission = candidates.map { -0.5 * ($0.distance / parameters.sigma) * ($0.distance / parameters.sigma) }
            if candidates.isEmpty {
                runs += decode(chain)
                chain = Chain()
                continue
            }
            if let last = chain.fixes.last {
                let straight = Geodesic.distance(fixes[last].position, fixes[i].position)
                let limit = parameters.detourFactor * straight + parameters.detourSlack
                let (score, back) = step(from: chain, to: candidates, emission, straight: straight, limit: limit)
                if back.contains(where: { $0 >= 0 }) {
                    let top = score.max()!
                    chain.fixes.append(i)
                    chain.candidates.append(candidates)
                    chain.back.append(back)
                    chain.limits.append(limit)
                    chain.score = score.map { $0 - top }  // kept near 0: no drift over long rides
                    continue
                }
                runs += decode(chain)
            }
            chain = Chain(fixes: [i], candidates: [candidates], back: [[]], limits: [0], score: emission)
        }
        runs += decode(chain)
        return StreetMatch(runs: runs, unmatched: Self.gaps(between: runs, count: fixes.count))
    }

    /// The fixes kept: the first, each ≥ 2σ from the last kept (N&K), and the last.
    func thinned(_ fixes: [MatchFix]) -> [Int] {
        var kept: [Int] = []
        for (i, fix) in fixes.enumerated() {
            if let last = kept.last, Geodesic.distance(fixes[last].position, fix.position) < parameters.thinning, i < fixes.count - 1 {
                continue
            }
            kept.append(i)
        }
        return kept
    }

    /// One Viterbi step: each candidate's best score and predecessor (−1: none reaches it).
    private func step(
        from chain: Chain, to candidates: [MatchCandidate], _ emission: [Double], straight: Double, limit: Double
    ) -> ([Double], [Int]) {
        var score = [Double](repeating: -.infinity, count: candidates.count)
        var back = [Int](repeating: -1, count: candidates.count)
        for (i, source) in chain.candidates[chain.candidates.count - 1].enumerated() where chain.score[i] > -.infinity {
            let routes = graph.routes(
                from: source, to: candidates, limit: limit, noise: parameters.fallBack, uTurn: parameters.uTurnPenalty)
            for (j, route) in routes.enumerated() {
                guard let route else { continue }
                let turn = route.turnsBack ? parameters.uTurnPenalty : 0
                let s = chain.score[i] - (abs(route.length - straight) + turn) / parameters.beta + emission[j]
                if s > score[j] { (score[j], back[j]) = (s, i) }  // strictly: the lower edge key keeps a tie
            }
        }
        return (score, back)
    }

    /// The chain's likeliest path as a run; none for a chain of one fix or with nothing ridden.
    private func decode(_ chain: Chain) -> [StreetMatch.Run] {
        guard chain.fixes.count > 1 else { return [] }
        var best = chain.score.indices.max { (chain.score[$0], -$0) < (chain.score[$1], -$1) }!
        var chosen = [MatchCandidate]()
        for k in stride(from: chain.fixes.count - 1, through: 0, by: -1) {
            chosen.append(chain.candidates[k][best])
            if k > 0 { best = chain.back[k][best] }
        }
        chosen.reverse()
        var builder = PieceBuilder(graph: graph, noise: parameters.fallBack, start: chosen[0])
        for k in 1..<chosen.count {
            // The route Viterbi scored, searched again for this one pair: it is found within the same bound.
            let route = graph.routes(
                from: chosen[k - 1], to: [chosen[k]], limit: chain.limits[k], noise: parameters.fallBack, uTurn: parameters.uTurnPenalty)[0]
            if let route { builder.add(route, to: chosen[k]) }
        }
        let pieces = builder.pieces()
        // Only noise along a street (a rider standing, or back steps against a one-way): nothing ridden.
        guard !pieces.isEmpty else { return [] }
        return [StreetMatch.Run(fixes: chain.fixes[0]...chain.fixes[chain.fixes.count - 1], pieces: pieces)]
    }

    /// The index ranges not covered by any run.
    static func gaps(between runs: [StreetMatch.Run], count: Int) -> [ClosedRange<Int>] {
        var gaps: [ClosedRange<Int>] = []
        var next = 0
        for run in runs {
            if run.fixes.lowerBound > next { gaps.append(next...(run.fixes.lowerBound - 1)) }
            next = run.fixes.upperBound + 1
        }
        if next < count { gaps.append(next...(count - 1)) }
        return gaps
    }
}
