/// Calendar arithmetic for UTCTime without Foundation (the core compiles alone under
/// swiftc for fuzzing), on `CivilDate`'s day numbers; no leap seconds, like POSIX time.
public struct UTCCivilTime: Sendable, Equatable {
    public var year: Int, month: Int, day: Int
    public var hour: Int, minute: Int, second: Int
    public var nanosecond: Int

    /// Creates a civil time from its fields (UTC, month and day 1-based).
    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, nanosecond: Int = 0) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.nanosecond = nanosecond
    }

    /// The calendar date and time of `time`, in UTC.
    public init(_ time: UTCTime) {
        let ns = time.nanosecondsSince1970
        let perDay: Int64 = 86_400_000_000_000
        let days = ns >= 0 ? ns / perDay : -((-ns + perDay - 1) / perDay)
        let inDay = ns - days * perDay
        let (y, m, d) = CivilDate.civil(days: Int(days))
        let secs = Int(inDay / 1_000_000_000)
        self.init(
            year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60,
            nanosecond: Int(inDay % 1_000_000_000))
    }

    /// Midnight UTC of day `days` (days since 1970-01-01).
    public init(days: Int) {
        let (y, m, d) = CivilDate.civil(days: days)
        self.init(year: y, month: m, day: d)
    }

    /// `2023-07-09`: the date alone.
    public var isoDate: String { "\(Self.zeroPadded(year, 4))-\(Self.zeroPadded(month, 2))-\(Self.zeroPadded(day, 2))" }

    /// Nanoseconds since 1970 fit Int64 only from 1677-09-21 to 2262-04-11; outside
    /// that this is nil (a crafted header's `created-utc=9999-…`).
    public var checkedUTCTime: UTCTime? {
        let days = Int64(CivilDate.days(year: year, month: month, day: day))
        let (daySeconds, o1) = days.multipliedReportingOverflow(by: 86_400)
        let (secs, o2) = daySeconds.addingReportingOverflow(Int64(hour * 3600 + minute * 60 + second))
        let (ns, o3) = secs.multipliedReportingOverflow(by: 1_000_000_000)
        let (total, o4) = ns.addingReportingOverflow(Int64(nanosecond))
        return o1 || o2 || o3 || o4 ? nil : UTCTime(nanosecondsSince1970: total)
    }

    /// `checkedUTCTime`, clamped to the representable range outside it.
    public var utcTime: UTCTime {
        checkedUTCTime ?? UTCTime(nanosecondsSince1970: year < 1970 ? .min : .max)
    }

    /// `2023-07-09T14:43:17.599Z` (milliseconds; NMEA and GoPro carry no more).
    public var iso8601Milliseconds: String {
        "\(isoDate)T\(Self.zeroPadded(hour, 2)):\(Self.zeroPadded(minute, 2)):\(Self.zeroPadded(second, 2))."
            + "\(Self.zeroPadded(nanosecond / 1_000_000, 3))Z"
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction]Z`; nil for anything else.
    public static func parseISO8601(_ text: String) -> UTCCivilTime? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == UInt8(ascii: "Z") else { return nil }
        func num(_ r: Range<Int>) -> Int? {
            var v = 0
            for i in r {
                guard b[i] >= 48, b[i] <= 57 else { return nil }
                v = v * 10 + Int(b[i] - 48)
            }
            return v
        }
        guard b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"), b[10] == UInt8(ascii: "T"),
            b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10),
            let h = num(11..<13), let mi = num(14..<16), let s = num(17..<19),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61
        else { return nil }
        var ns = 0
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count - 21 <= 9, b.count - 21 >= 1,
                let f = num(20..<(b.count - 1))
            else { return nil }
            ns = f
            for _ in 0..<(9 - (b.count - 21)) { ns *= 10 }
        } else if b[19] != UInt8(ascii: "Z") {
            return nil
        }
        return UTCCivilTime(year: y, month: mo, day: d, hour: h, minute: mi, second: s, nanosecond: ns)
    }
}

extension UTCCivilTime {
    static func zeroPadded(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
