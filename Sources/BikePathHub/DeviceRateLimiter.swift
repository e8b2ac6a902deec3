import Synchronization

/// Per-device token buckets: a device may send `perSecond` record requests a second on
/// average, `burst` at once; past that it is answered 429 with `Retry-After`. Kept in
/// each hub process (a device behind a load balancer that spreads it over n replicas
/// gets up to n times the rate). A real device sends a few requests per ride, so the
/// default of 10/s with a burst of 100 stops only a runaway client.
final class DeviceRateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: ContinuousClock.Instant }
    private let buckets = Mutex<[String: Bucket]>([:])
    let perSecond: Double
    let burst: Double

    init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Takes one token from the device's bucket; false when it is empty. Always true when `perSecond` is 0 (off).
    func allow(_ device: String, now: ContinuousClock.Instant = .now) -> Bool {
        guard perSecond > 0 else { return true }
        return buckets.withLock { all in
            var b = all[device] ?? Bucket(tokens: burst, updated: now)
            let elapsed = now - b.updated
            b.tokens = min(burst, b.tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
            b.updated = now
            let allowed = b.tokens >= 1
            if allowed { b.tokens -= 1 }
            all[device] = b
            return allowed
        }
    }
}
