#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import BikePathCore

/// The clocks read at the edge of the process, where a sample arrives. The core never
/// reads a clock; sources stamp each input with CLOCK_MONOTONIC here.
public enum EdgeClock {
    /// CLOCK_MONOTONIC now: the pipeline's shared sample clock.
    public static func monotonic() -> SampleTime {
        SampleTime(nanoseconds: read(CLOCK_MONOTONIC))
    }

    /// CLOCK_REALTIME now, nanoseconds since 1970 (the system clock GNSS time is compared with).
    public static func realtimeNanoseconds() -> Int64 { read(CLOCK_REALTIME) }

    /// Both clocks read back to back, for mapping one onto the other.
    public static func pair() -> (monotonic: Int64, realtime: Int64) {
        let m1 = read(CLOCK_MONOTONIC)
        let r = read(CLOCK_REALTIME)
        let m2 = read(CLOCK_MONOTONIC)
        return (m1 + (m2 - m1) / 2, r)
    }

    private static func read(_ clock: clockid_t) -> Int64 {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
