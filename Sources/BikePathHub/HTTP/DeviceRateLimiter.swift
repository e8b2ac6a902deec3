import Synchronization

/// Per-device token buckets counted in **records**: a device may send `perSecond` records a
/// second on average and `burst` at once; a single PUT costs 1, a batch of n records costs n
/// (counting requests let one device send ~10,000 records/s in 1,000-record
/// batches). A request is admitted while the bucket holds at least one token and then pays
/// its whole cost, so the bucket may go into debt: a 1,000-record batch is never refused for
/// its size alone, and the device then waits until the debt is paid back. Past that it is
/// answered 429 with `Retry-After` (the seconds until the bucket holds a token again).
/// Kept in each hub process (a device behind a load balancer that spreads it over n
/// replicas gets up to n times the rate).
final class DeviceRateLimiter: Sendable {
    private struct Bucket { var tokens: Double; var updated: ContinuousClock.Instant }
    private let buckets = Mutex<[String: Bucket]>([:])
    let perSecond: Double
    let burst: Double

    init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }

    /// Admits a request and takes 1 for it: nil when the device may send now, else the whole
    /// seconds (at least 1) until it may. Every request costs at least 1, so a body refused
    /// before its records are counted (malformed, too large) is not free; the rest of a
    /// batch's cost is known only once it is decoded (`charge`).
    func admit(_ device: String, now: ContinuousClock.Instant = .now) -> Int? {
        guard perSecond > 0 else { return nil }
        return buckets.withLock { all in
            var b = refilled(all[device], now)
            defer { all[device] = b }
            guard b.tokens >= 1 else { return max(1, Int(((1 - b.tokens) / perSecond).rounded(.up))) }
            b.tokens -= 1
            return nil
        }
    }

    /// Takes `records` more from the device's bucket (it may go into debt).
    func charge(_ device: String, records: Int, now: ContinuousClock.Instant = .now) {
        guard perSecond > 0 else { return }
        buckets.withLock { all in
            var b = refilled(all[device], now)
            b.tokens -= Double(records)
            all[device] = b
        }
    }

    private func refilled(_ bucket: Bucket?, _ now: ContinuousClock.Instant) -> Bucket {
        var b = bucket ?? Bucket(tokens: burst, updated: now)
        let elapsed = now - b.updated
        b.tokens = min(burst, b.tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
        b.updated = now
        return b
    }
}
