#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exponential backoff, the one rule for every retry (sync to the hub, gpsd and
/// IIO reconnects): after the n-th failure in a row, wait `d/2 + jitter·d/2`
/// with `d = min(cap, base·2^(n-1))`, never more than `cap`. The jitter source is
/// the caller's, so tests are deterministic; jitter 1 gives `d` itself.
public struct Backoff: Sendable, Equatable {
    public var baseSeconds: Double
    public var capSeconds: Double
    /// Failures in a row that `next` counted since the last `reset`.
    public private(set) var failures = 0

    /// Creates a backoff; `baseSeconds` is at least 1 ms and `capSeconds` at least `baseSeconds`.
    public init(baseSeconds: Double = 1, capSeconds: Double = 300) {
        self.baseSeconds = max(0.001, baseSeconds)
        self.capSeconds = max(self.baseSeconds, capSeconds)
    }

    /// `jitter` is a number in [0, 1).
    public func delay(afterFailures n: Int, jitter: Double) -> Double {
        guard n > 0 else { return 0 }
        let d = min(capSeconds, baseSeconds * pow(2, Double(min(n - 1, 40))))
        return min(capSeconds, d / 2 + max(0, min(1, jitter)) * d / 2)
    }

    /// A reader's reconnect: counts one more failure and returns the full delay
    /// (base, 2·base, … cap; no jitter: one device, no herd to spread).
    public mutating func next() -> Double {
        failures += 1
        return delay(afterFailures: failures, jitter: 1)
    }

    /// Data arrived: the next failure starts from `base` again.
    public mutating func reset() { failures = 0 }
}
