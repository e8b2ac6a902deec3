/// First-order band-pass as the difference of two one-pole low-passes. Coefficients are
/// dt/(τ+dt) per sample, so irregular sample spacing needs no transcendental functions
/// in the hot loop.
struct BandPass: Sendable, Equatable {
    var fast: Float = 0
    var slow: Float = 0
    let tauFast: Float
    let tauSlow: Float
    var primed = false
    /// Coefficients for the last dt: sample spacing rarely changes, divisions are dear.
    var lastDt: Float = -1
    var aFast: Float = 0
    var aSlow: Float = 0

    init(highPassHz: Float, lowPassHz: Float) {
        tauSlow = 1 / (2 * Float.pi * highPassHz)
        tauFast = 1 / (2 * Float.pi * lowPassHz)
    }

    @inline(__always)
    mutating func step(_ x: Float, dt: Float) -> Float {
        if !primed {
            // Start settled on the first value so a gravity offset does not ring as an event.
            fast = x; slow = x; primed = true
            return 0
        }
        if dt != lastDt {
            lastDt = dt
            aFast = dt / (tauFast + dt)
            aSlow = dt / (tauSlow + dt)
        }
        fast += aFast * (x - fast)
        slow += aSlow * (x - slow)
        return fast - slow
    }
}
