/// A receive timestamp on the one monotonic clock every source shares (CLOCK_MONOTONIC
/// on a live device, the recorded value on replay). The core never reads a clock: time
/// only advances when a sample says so.
///
/// The arithmetic never traps: a crafted recording may hold any Int64 (a difference of
/// Int64.max and Int64.min overflows Int64), so a difference that does not fit is taken
/// in Double (exact below 2^53 ns, 104 days; ~1 µs off at 292 years) and a sum saturates.
public struct SampleTime: Sendable, Hashable, Comparable, Codable {
    public var nanoseconds: Int64

    /// Creates a time from nanoseconds on the monotonic clock.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    /// Creates a time from seconds, rounded to the nanosecond and clamped to Int64.
    public init(seconds: Double) { self.nanoseconds = Self.clampedNanoseconds(seconds * 1e9) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// Earlier is smaller.
    public static func < (a: SampleTime, b: SampleTime) -> Bool { a.nanoseconds < b.nanoseconds }
    /// The difference in seconds (computed in Double when it does not fit in Int64).
    public static func - (a: SampleTime, b: SampleTime) -> Double {
        let (difference, overflow) = a.nanoseconds.subtractingReportingOverflow(b.nanoseconds)
        return overflow ? (Double(a.nanoseconds) - Double(b.nanoseconds)) / 1e9 : Double(difference) / 1e9
    }
    /// The time `seconds` later (earlier when negative); saturates instead of overflowing.
    public static func + (a: SampleTime, seconds: Double) -> SampleTime {
        let delta = clampedNanoseconds(seconds * 1e9)
        let (sum, overflow) = a.nanoseconds.addingReportingOverflow(delta)
        return SampleTime(nanoseconds: overflow ? (delta > 0 ? .max : .min) : sum)
    }

    /// Rounded and clamped to Int64 (NaN: 0).
    public static func clampedNanoseconds(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        // 2^63 is exactly representable; anything at or beyond it does not fit.
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value < -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value.rounded())
    }
}

/// A UTC instant as the receiver reported it, kept exact (NMEA carries at most
/// milliseconds; nanoseconds since 1970 represent that without rounding).
public struct UTCTime: Sendable, Hashable, Comparable, Codable {
    public var nanosecondsSince1970: Int64

    /// Creates an instant from nanoseconds since 1970-01-01T00:00:00Z.
    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    public var secondsSince1970: Double { Double(nanosecondsSince1970) / 1e9 }

    /// Earlier is smaller.
    public static func < (a: UTCTime, b: UTCTime) -> Bool { a.nanosecondsSince1970 < b.nanosecondsSince1970 }
}
