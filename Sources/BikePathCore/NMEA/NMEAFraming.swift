/// Sentence framing: `$` + address + fields + `*hh`, printable ASCII only.
enum NMEAFraming {
    /// No real sentence in the gpsd regression logs is longer than 220 bytes (RTK GGA
    /// with many decimals, proprietary PGLOR); longer lines are run-together noise.
    static let maximumLength = 240
    /// Enough for every standard sentence (GSV has 21, GSA 19); more means noise.
    static let maximumFields = 64

    /// Where the sentence starts: the line itself when it begins with `$`; otherwise
    /// the first `$` after any noise (binary packets or blanks before a sentence on
    /// the same line, which gpsd's packet lexer also skips). nil when there is none.
    static func sentenceStart(_ line: UnsafeRawBufferPointer) -> Int? {
        if line.count > 0 && line[0] == UInt8(ascii: "$") { return 0 }
        var tail = line.count
        while tail > 0, isPrintable(line[tail - 1]) || line[tail - 1] == 0x0D || line[tail - 1] == 0x0A { tail -= 1 }
        for i in tail..<line.count where line[i] == UInt8(ascii: "$") { return i }
        return nil
    }

    /// Checks the frame and checksum and splits the payload (between `$` and `*`)
    /// into fields. Returns the number of fields written to `bounds`. `line` must
    /// start at the `$` (see `sentenceStart`).
    static func split(_ line: UnsafeRawBufferPointer, into bounds: UnsafeMutableBufferPointer<Int32>) throws(RejectReason) -> Int {
        var end = line.count
        // Tolerate the line ending and trailing blanks a log or socket may leave.
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A || line[end - 1] == 0x20 { end -= 1 }
        guard end > 0 else { throw .notNMEA }
        guard line[0] == UInt8(ascii: "$") else {
            for i in 0..<end where !isPrintable(line[i]) { throw .binary }
            throw .notNMEA
        }
        guard end <= maximumLength else { throw .overlong }
        var sum: UInt8 = 0
        var fields = 0
        var fieldStart = 1
        var i = 1
        while i < end {
            let c = line[i]
            if c == UInt8(ascii: "*") { break }
            guard isPrintable(c) else { throw .binary }
            sum ^= c
            if c == UInt8(ascii: ",") {
                guard fields < maximumFields else { throw .overlong }
                bounds[2 * fields] = Int32(fieldStart)
                bounds[2 * fields + 1] = Int32(i)
                fields += 1
                fieldStart = i + 1
            }
            i += 1
        }
        guard i < end else { throw .missingChecksum }
        let star = i
        for k in (star + 1)..<end where !isPrintable(line[k]) { throw .binary }
        guard end - star >= 3 else { throw .missingChecksum }
        guard end - star == 3, let high = hexValue(line[star + 1]), let low = hexValue(line[star + 2]),
            high << 4 | low == sum
        else { throw .badChecksum }
        guard fields < maximumFields else { throw .overlong }
        bounds[2 * fields] = Int32(fieldStart)
        bounds[2 * fields + 1] = Int32(star)
        return fields + 1
    }

    @inline(__always) static func isPrintable(_ c: UInt8) -> Bool { c &- 0x20 < 0x5F }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}

/// The eight sentence types decoded, whatever the talker.
enum SentenceType: Int {
    case rmc, gga, gsa, gsv, vtg, gll, gns, zda

    /// From the address field (`GPRMC`, `GNGGA`, `BDGSV`, …): two talker letters and a type.
    init?(address: NMEAField) {
        guard address.count == 5 else { return nil }
        let b = address.bytes, s = address.start
        let a = b[s + 2], m = b[s + 3], c = b[s + 4]
        switch (a, m, c) {
        case (0x52, 0x4D, 0x43): self = .rmc  // RMC
        case (0x47, 0x47, 0x41): self = .gga  // GGA
        case (0x47, 0x53, 0x41): self = .gsa  // GSA
        case (0x47, 0x53, 0x56): self = .gsv  // GSV
        case (0x56, 0x54, 0x47): self = .vtg  // VTG
        case (0x47, 0x4C, 0x4C): self = .gll  // GLL
        case (0x47, 0x4E, 0x53): self = .gns  // GNS
        case (0x5A, 0x44, 0x41): self = .zda  // ZDA
        default: return nil
        }
    }

    /// Sentences whose time field drives epoch boundaries.
    var carriesTime: Bool { self == .rmc || self == .gga || self == .gll || self == .gns || self == .zda }
}
