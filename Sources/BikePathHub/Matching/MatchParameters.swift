/// The hidden-Markov matcher's parameters, after Newson & Krumm 2009 ("Hidden Markov Map
/// Matching Through Noise and Sparseness", ACM GIS), whose values OSRM, Valhalla and
/// GraphHopper start from. docs/hub.md, "Map matching", gives the reasons and today's figures.
public struct MatchParameters: Sendable, Equatable {
    /// σ of the GNSS position noise, metres: the emission is Gaussian in a fix's distance to
    /// a street. N&K measured 4.07 m; a bicycle's receiver in a city is 3–10 m.
    public var sigma: Double
    /// β of the transition, metres: its probability falls as exp(−|route − straight| / β)
    /// between consecutive kept fixes. N&K's estimate, median |route − straight| / ln 2 over
    /// true transitions, measured on the simulated rides over central London
    /// (`StreetMatchingTests`): 8.8 m at σ 5 m, 24.6 m at σ 10 m (it grows faster than σ:
    /// thinning keeps fixes ≥ 2σ apart by their noisy positions, so a wider noise keeps more
    /// pairs whose true distance is far from their straight one). The default is the line
    /// through those two, and 1.77σ below 5 m.
    public var beta: Double
    /// How far from a fix a street may lie and still be a candidate, metres: 50 m is 10σ
    /// at σ = 5 m (and 5σ at 10 m): a fix farther than that from every street is on none
    /// (a park path, a new track), and stays unmatched.
    public var radius: Double
    /// The nearest streets kept per fix (each as one candidate per way a bicycle may ride
    /// it): central London has up to ~20 edges within 50 m of a junction. With 8, a simulated
    /// ride at σ 10 m found its true street missing at 4 of 265 kept fixes; with 12, a ride
    /// through Blackfriars (the underpass, its cycle track, Puddle Dock's links) still lost
    /// it there and was laid on the track with a U-turn: 83.1 % of that ride on its true
    /// street, against 94.1 % with 16 (bench/matching.sh, 20 rides from seed 1; 89.2 % →
    /// 96.2 % on those from seed 1,001). 24 gave the same matches as 16; 16 bounds the work
    /// per step to 32² route lengths.
    public var maxCandidates: Int
    /// The longest route looked for between two consecutive kept fixes is
    /// `detourFactor` × their straight distance + `detourSlack`: beyond it the transition's
    /// probability is below e^−(slack/β), so the search stops there (and a chain breaks where
    /// no street joins, instead of exploring the city).
    public var detourFactor: Double
    public var detourSlack: Double
    /// Metres added to a route that turns back on a street between two fixes (GraphHopper's
    /// U-turn penalty: 1,500 m, its 300 s heading penalty at 5 m/s), when routes are compared
    /// and in the transition: a fix's noise or a side street's candidate at a junction is
    /// then no short there-and-back. A rider who does turn back is still matched so, as no
    /// other route within the bound joins the fixes; a dead end is turned at freely.
    public var uTurnPenalty: Double

    public init(
        sigma: Double = 5, beta: Double? = nil, radius: Double = 50, maxCandidates: Int = 16, detourFactor: Double = 2,
        detourSlack: Double = 50, uTurnPenalty: Double = 1_500
    ) {
        (self.sigma, self.beta, self.radius, self.maxCandidates) = (sigma, beta ?? Self.measuredBeta(sigma), radius, maxCandidates)
        (self.detourFactor, self.detourSlack, self.uTurnPenalty) = (detourFactor, detourSlack, uTurnPenalty)
    }

    /// β through N&K's estimates at σ 5 m (8.85 m) and σ 10 m (24.6 m); see `beta`.
    static func measuredBeta(_ sigma: Double) -> Double { sigma <= 5 ? 1.77 * sigma : 8.85 + (sigma - 5) * 3.15 }

    /// Movement within 2σ of a fix is not told from its noise (N&K): fixes closer than this
    /// to the last kept one are left out before matching.
    var thinning: Double { 2 * sigma }

    /// A later fix that falls back along the same street, the same way, by no more than 5σ
    /// is noise, the rider taken to have gone on (route length 0): consecutive fixes' noise
    /// along a street differs by σ√2, so 5σ is 3.5 of its deviations, rarer than 1 in 4,000
    /// steps. At 3σ (1 in 60) the matcher laid some of them as loops round a block at
    /// σ 10 m; a turn back is a U-turn, told apart by `uTurnPenalty`.
    var fallBack: Double { 5 * sigma }
}
