import Foundation

/// Reads the hub's `Retry-After` header.
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
