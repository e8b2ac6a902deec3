/// The hidden-Markov matcher's parameters, after Newson & Krumm 2009 ("Hidden Markov Map
/// Matching Through Noise and Sparseness", ACM GIS), whose values OSRM, Valhalla and
/// GraphHopper start from. docs/hub.md, "Map matching", gives the reasons and today's figures.
public struct MatchParameters: Sendable, Equatable {
    /// σ of the GNSS position noise, metres: the emission is Gaussian in a fix's distance to
    /// a street. N&K measured 4.07 m; a bicycle's receiver in a city is 3–10 m.
    public var sigma: Double
    /// β of the transition, metres: its probability falls as exp(−|route − straight| / β)
    /// between consecutive fixes. N&K's median-based estimate at dense sampling is a few
    /// metres; Valhalla's default is 3 m. Kept fixes are ≥ 2σ apart, so the noise alone
    /// moves a route by about σ√2 between them: β = σ keeps that from deciding.
    public var beta: Double
    /// How far from a fix a street may lie and still be a candidate, metres: 50 m is 10σ
    /// at σ = 5 m (and 5σ at 10 m): a fix farther than that from every street is on none
    /// (a park path, a new track), and stays unmatched.
    public var radius: Double
    /// The nearest streets kept per fix: central London has up to ~20 edges within 50 m of a
    /// junction; 8 is more than a fix is ever between, and bounds the work per step to 8²
    /// route lengths.
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
        sigma: Double = 5, beta: Double? = nil, radius: Double = 50, maxCandidates: Int = 8, detourFactor: Double = 2,
        detourSlack: Double = 50, uTurnPenalty: Double = 1_500
    ) {
        (self.sigma, self.beta, self.radius, self.maxCandidates) = (sigma, beta ?? sigma, radius, maxCandidates)
        (self.detourFactor, self.detourSlack, self.uTurnPenalty) = (detourFactor, detourSlack, uTurnPenalty)
    }

    /// Movement within 2σ of a fix is not told from its noise (N&K): fixes closer than this
    /// to the last kept one are left out before matching.
    var thinning: Double { 2 * sigma }

    /// A later fix that falls back along the same street by no more than 3σ is noise, the
    /// rider taken to have gone on (route length 0, on a one-way too): consecutive fixes'
    /// noise differs by σ√2, so such a fall-back is rarer than 1 in 60 steps, and a U-turn or
    /// a ride against a one-way, which steps back farther, is told from it.
    var fallBack: Double { 3 * sigma }
}
