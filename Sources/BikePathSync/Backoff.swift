import Foundation

/// Exponential backoff with jitter: after the n-th failure in a row, wait
/// `d/2 + jitter·d/2` with `d = min(cap, base·2^(n-1))`, never more than `cap`.
/// The jitter source is injected, so tests can make it deterministic.
public struct Backoff: Sendable {
    public var baseSeconds: Double
    public var capSeconds: Double
    public init(baseSeconds: Double = 1, capSeconds: Double = 300) {
        self.baseSeconds = baseSeconds
        self.capSeconds = capSeconds
    }

    /// `jitter` is a number in [0, 1).
    public func delay(afterFailures n: Int, jitter: Double) -> Double {
        guard n > 0 else { return 0 }
        let d = min(capSeconds, baseSeconds * pow(2, Double(min(n - 1, 40))))
        return min(capSeconds, d / 2 + max(0, min(1, jitter)) * d / 2)
    }
}

public enum RetryAfter {
    /// Seconds to wait from a `Retry-After` value (delta-seconds or HTTP-date),
    /// clamped to [0, 3600]; nil when absent or unreadable.
    public static func seconds(_ value: String?, now: Date = Date()) -> Double? {
        guard let v = value?.trimmingCharacters(in: .whitespaces), !v.isEmpty else { return nil }
        if let s = Double(v), s.isFinite { return min(3600, max(0, s)) }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = f.date(from: v) else { return nil }
        return min(3600, max(0, date.timeIntervalSince(now)))
    }
}
