/// Writes fixes as gpsd-style JSON objects, one per line:
/// `{"time":"2014-12-31T03:07:19.000Z","mode":3,"lat":…,"lon":…,"alt":…,"speed":…,"track":…}`.
/// A value the fix does not have is left out. Numbers use gpsd's precision
/// (lat/lon 9 decimals, alt 4, speed 3, track 4), formatted with integer arithmetic
/// straight into a byte buffer: this runs once per fix on the decode hot path.
public enum FixJSON {
    /// Appends `fix` as one JSON object (gpsd TPV field names) to `out`; absent values are left
    /// out.
    public static func append(_ fix: GNSSFix, to out: inout [UInt8]) {
        append("{", to: &out)
        var first = true
        if let time = fix.time {
            append("\"time\":\"", to: &out)
            appendISO8601(time, to: &out)
            append("\"", to: &out)
            first = false
        }
        append(first ? "\"mode\":" : ",\"mode\":", to: &out)
        appendInteger(Int64(fix.mode.rawValue), to: &out)
        appendField(",\"lat\":", fix.latitude, decimals: 9, to: &out)
        appendField(",\"lon\":", fix.longitude, decimals: 9, to: &out)
        appendField(",\"alt\":", fix.altitudeMSL, decimals: 4, to: &out)
        appendField(",\"speed\":", fix.speed, decimals: 3, to: &out)
        appendField(",\"track\":", fix.track, decimals: 4, to: &out)
        append("}\n", to: &out)
    }

    /// One fix as a JSON line (convenience for tests and small callers).
    public static func line(_ fix: GNSSFix) -> String {
        var out: [UInt8] = []
        append(fix, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `2014-12-31T03:07:19.000Z` (milliseconds, truncated like gpsd).
    public static func appendISO8601(_ time: UTCTime, to out: inout [UInt8]) {
        let ns = time.nanosecondsSince1970
        var days = ns / 86_400_000_000_000
        var rest = ns % 86_400_000_000_000
        if rest < 0 { rest += 86_400_000_000_000; days -= 1 }
        let (y, mo, d) = CivilDate.civil(days: Int(days))
        let seconds = rest / 1_000_000_000
        let millis = rest % 1_000_000_000 / 1_000_000
        appendPadded(Int64(y), width: 4, to: &out); out.append(UInt8(ascii: "-"))
        appendPadded(Int64(mo), width: 2, to: &out); out.append(UInt8(ascii: "-"))
        appendPadded(Int64(d), width: 2, to: &out); out.append(UInt8(ascii: "T"))
        appendPadded(seconds / 3600, width: 2, to: &out); out.append(UInt8(ascii: ":"))
        appendPadded(seconds / 60 % 60, width: 2, to: &out); out.append(UInt8(ascii: ":"))
        appendPadded(seconds % 60, width: 2, to: &out); out.append(UInt8(ascii: "."))
        appendPadded(millis, width: 3, to: &out); out.append(UInt8(ascii: "Z"))
    }

    static func appendField(_ key: StaticString, _ value: Double?, decimals: Int, to out: inout [UInt8]) {
        guard let value, value.isFinite, abs(value) < 1e9 else { return }
        append(key, to: &out)
        appendFixed(value, decimals: decimals, to: &out)
    }

    /// Fixed-point decimal; |value| < 1e9 and decimals ≤ 9 keep the scaled value in Int64.
    static func appendFixed(_ value: Double, decimals: Int, to out: inout [UInt8]) {
        let scale = powersOfTen[decimals]
        var scaled = Int64((abs(value) * scale).rounded())
        if value < 0 && scaled != 0 { out.append(UInt8(ascii: "-")) }
        let unit = Int64(scale)
        let whole = scaled / unit
        scaled %= unit
        appendInteger(whole, to: &out)
        out.append(UInt8(ascii: "."))
        appendPadded(scaled, width: decimals, to: &out)
    }

    static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        var v = value
        if v < 0 { out.append(UInt8(ascii: "-")); v = -v }
        var digits = 1
        var t = v
        while t >= 10 { t /= 10; digits += 1 }
        appendPadded(v, width: digits, to: &out)
    }

    static func appendPadded(_ value: Int64, width: Int, to out: inout [UInt8]) {
        let start = out.count
        for _ in 0..<width { out.append(UInt8(ascii: "0")) }
        var v = value
        var i = start + width - 1
        while i >= start {
            out[i] = UInt8(48 + v % 10)
            v /= 10
            i -= 1
        }
    }

    static func append(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}
