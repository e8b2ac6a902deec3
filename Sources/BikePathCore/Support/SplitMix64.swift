/// Deterministic pseudo-random generator (SplitMix64, Steele et al. 2014): the one
/// generator of fixtures, randomised tests, benchmarks and the hub's fault dice, so
/// that each reproduces exactly from its seed. Not for anything secret.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    /// Creates a generator; the same `state` gives the same sequence.
    public init(state: UInt64) { self.state = state }
    /// The next 64 random bits (SplitMix64 step).
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
