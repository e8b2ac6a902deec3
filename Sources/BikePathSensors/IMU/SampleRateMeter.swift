/// Measures the real sample rate from sample timestamps, and counts gaps: consecutive
/// samples further apart than 1.5 nominal periods (a kernel FIFO overflow, a stalled
/// sensor). Rate is published once a window of at least `window` seconds has passed.
public struct SampleRateMeter: Sendable {
    public var nominalRate: Double
    public var window: Int64 = 1_000_000_000
    public private(set) var measuredRateHz: Double?
    public private(set) var gaps = 0
    /// Samples estimated missing across the gaps.
    public private(set) var missingSamples = 0

    private var windowStart: Int64?
    private var windowCount = 0
    private var last: Int64?

    /// Creates a meter for a sensor running at `nominalRate` Hz (0: gaps are not counted).
    public init(nominalRate: Double) { self.nominalRate = nominalRate }

    /// Counts the sample stamped `time` (ns): a gap when it comes over 1.5 periods after the
    /// last one.
    public mutating func add(_ time: Int64) {
        if let last, nominalRate > 0 {
            let period = 1e9 / nominalRate
            let delta = Double(time - last)
            if delta > 1.5 * period {
                gaps += 1
                missingSamples += max(1, Int((delta / period).rounded()) - 1)
            }
        }
        last = time
        guard let start = windowStart else {
            windowStart = time
            windowCount = 0
            return
        }
        windowCount += 1
        if time - start >= window {
            measuredRateHz = Double(windowCount) * 1e9 / Double(time - start)
            windowStart = time
            windowCount = 0
        }
    }

    /// Starts a new rate window (after a reconnect) but keeps the last sample time: samples
    /// lost while the device was away are a gap in the delivered stream like any other.
    public mutating func restartWindow() {
        windowStart = nil
        windowCount = 0
    }
}
