/// Writes the NMEA 0183 sentences a receiver would send for a fix (RMC + GGA), with
/// checksums. Importers use it to turn non-NMEA GNSS logs into what gpsd would relay.
public enum NMEAWriter {
    /// XOR of the bytes between `$` and `*`.
    public static func checksum(body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    /// `$` + body + `*` + two upper-case hex digits.
    public static func sentence(body: String) -> String {
        let c = checksum(body: body.utf8)
        let hex = Array("0123456789ABCDEF".utf8)
        return "$" + body + "*" + String(decoding: [hex[Int(c >> 4)], hex[Int(c & 0xF)]], as: UTF8.self)
    }

    /// RMC, then GGA, for one fix; empty when the fix has no time (a receiver always sends one).
    /// Without a position (mode below 2D) the position fields are left empty and RMC says `V`.
    /// A 2D fix gets no altitude, so that a decoder infers 2D from GGA the way gpsd does. A fix
    /// without a satellite count gets the fewest its mode needs, so that gpsd keeps the fix.
    public static func sentences(for fix: GNSSFix, talker: String = "GP") -> [String] {
        guard let time = fix.time else { return [] }
        let civil = UTCCivilTime(time)
        let hms = pad(civil.hour, 2) + pad(civil.minute, 2) + pad(civil.second, 2) + "." + pad(civil.nanosecond / 1_000_000, 3)
        let date = pad(civil.day, 2) + pad(civil.month, 2) + pad(civil.year % 100, 2)
        let valid = fix.mode >= .twoD && fix.coordinate != nil
        let lat = valid ? fix.latitude.map { degreesMinutes($0, degreeDigits: 2, positive: "N", negative: "S") } ?? "," : ","
        let lon = valid ? fix.longitude.map { degreesMinutes($0, degreeDigits: 3, positive: "E", negative: "W") } ?? "," : ","
        let knots = valid ? fix.speed.map { fixed($0 / 0.514444, 3) } ?? "" : ""
        let track = valid ? fix.track.map { fixed($0, 2) } ?? "" : ""
        let rmc = "\(talker)RMC,\(hms),\(valid ? "A" : "V"),\(lat),\(lon),\(knots),\(track),\(date),,,\(valid ? "A" : "N")"
        let quality = valid ? "1" : "0"
        // gpsd reads a GGA whose satellite count is under 3 as no fix, and an empty count as 0
        // (3.22, driver_nmea0183.c): a source without counts (GoPro) would then flicker between
        // gpsd's no-fix GGA and 2D RMC. It gets the fewest satellites its fix needs: 3 for 2D, 4 for 3D.
        let fewest = fix.mode == .threeD ? 4 : 3
        let sats = fix.satellitesUsed.map { pad($0, 2) } ?? (valid ? pad(fewest, 2) : "")
        let hdop = fix.hdop.map { fixed($0, 2) } ?? ""
        let alt = valid && fix.mode == .threeD ? fix.altitudeMSL.map { fixed($0, 3) } ?? "" : ""
        let gga = "\(talker)GGA,\(hms),\(lat),\(lon),\(quality),\(sats),\(hdop),\(alt),\(alt.isEmpty ? "" : "M"),,,,"
        return [sentence(body: rmc), sentence(body: gga)]
    }

    /// `ddmm.mmmmmm,H` (latitude) or `dddmm.mmmmmm,H` (longitude): 1e-6 minute ≈ 2 mm.
    static func degreesMinutes(_ value: Double, degreeDigits: Int, positive: String, negative: String) -> String {
        guard value.isFinite, abs(value) <= 180 else { return "," }
        let microMinutes = Int64((abs(value) * 60_000_000).rounded())
        let degrees = Int(microMinutes / 60_000_000)
        let rest = microMinutes % 60_000_000
        return pad(degrees, degreeDigits) + pad(Int(rest / 1_000_000), 2) + "." + pad(Int(rest % 1_000_000), 6)
            + "," + (value < 0 ? negative : positive)
    }

    /// Fixed-point decimal without Foundation.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        guard value.isFinite, abs(value) * Double(scale) < 9e18 else { return "" }
        let n = Int64((abs(value) * Double(scale)).rounded())
        let sign = value < 0 && n != 0 ? "-" : ""
        return sign + String(n / scale) + "." + pad(Int(n % scale), decimals)
    }

    private static func pad(_ v: Int, _ width: Int) -> String { UTCCivilTime.zeroPadded(v, width) }
}
