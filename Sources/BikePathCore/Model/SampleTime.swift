/// A receive timestamp on the one monotonic clock every source shares (CLOCK_MONOTONIC
/// on a live device, the recorded value on replay). The core never reads a clock: time
/// only advances when a sample says so.
public struct SampleTime: Sendable, Hashable, Comparable, Codable {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }
    public init(seconds: Double) { self.nanoseconds = Int64((seconds * 1e9).rounded()) }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public static func < (a: SampleTime, b: SampleTime) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func - (a: SampleTime, b: SampleTime) -> Double { Double(a.nanoseconds - b.nanoseconds) / 1e9 }
    public static func + (a: SampleTime, seconds: Double) -> SampleTime {
        SampleTime(nanoseconds: a.nanoseconds + Int64((seconds * 1e9).rounded()))
    }
}

/// A UTC instant as the receiver reported it, kept exact (NMEA carries at most
/// milliseconds; nanoseconds since 1970 represent that without rounding).
public struct UTCTime: Sendable, Hashable, Comparable, Codable {
    public var nanosecondsSince1970: Int64

    public init(nanosecondsSince1970: Int64) { self.nanosecondsSince1970 = nanosecondsSince1970 }

    public var secondsSince1970: Double { Double(nanosecondsSince1970) / 1e9 }

    public static func < (a: UTCTime, b: UTCTime) -> Bool { a.nanosecondsSince1970 < b.nanosecondsSince1970 }
}
