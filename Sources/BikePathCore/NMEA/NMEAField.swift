/// One comma-separated field of a sentence: a byte range into the caller's buffer.
/// Parsing works on bytes directly so that decoding allocates nothing per sentence.
struct NMEAField {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let end: Int

    var isEmpty: Bool { start >= end }
    var count: Int { end - start }
    /// The first byte, or 0 for an empty field.
    var first: UInt8 { start < end ? bytes[start] : 0 }

    /// A decimal number such as `-12.345`; nil when the field is empty.
    func decimal() throws(RejectReason) -> Double? {
        if isEmpty { return nil }
        var i = start
        var negative = false
        if bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
        var mantissa: Int64 = 0
        var digits = 0, fractionDigits = 0
        var seenPoint = false
        while i < end {
            let c = bytes[i]
            if c == UInt8(ascii: ".") {
                if seenPoint { throw .malformedField }
                seenPoint = true
            } else if c &- 48 < 10 {
                // Digits beyond 18 add nothing a receiver can measure; the integer part may not overflow.
                if digits < 18 {
                    mantissa = mantissa &* 10 &+ Int64(c &- 48)
                    digits += 1
                    if seenPoint { fractionDigits += 1 }
                } else if !seenPoint {
                    throw .outOfRange
                }
            } else {
                throw .malformedField
            }
            i += 1
        }
        if digits == 0 { throw .malformedField }
        let value = Double(mantissa) / powersOfTen[fractionDigits]
        return negative ? -value : value
    }

    /// A non-negative integer of at most 9 digits; nil when the field is empty.
    func integer() throws(RejectReason) -> Int? {
        if isEmpty { return nil }
        if count > 9 { throw .outOfRange }
        var value = 0
        for i in start..<end {
            let d = bytes[i] &- 48
            guard d < 10 else { throw .malformedField }
            value = value * 10 + Int(d)
        }
        return value
    }

    /// `hhmmss` with optional fraction, as nanoseconds since midnight; nil when empty.
    func timeOfDay() throws(RejectReason) -> Int64? {
        if isEmpty { return nil }
        guard count >= 6 else { throw .malformedField }
        for i in start..<(start + 6) where bytes[i] &- 48 >= 10 { throw .malformedField }
        let h = twoDigits(at: start), m = twoDigits(at: start + 2), s = twoDigits(at: start + 4)
        guard h < 24, m < 60, s < 61 else { throw .outOfRange }
        var nanos: Int64 = 0
        if count > 6 {
            guard bytes[start + 6] == UInt8(ascii: ".") else { throw .malformedField }
            var scale: Int64 = 100_000_000
            for i in (start + 7)..<end {
                let d = bytes[i] &- 48
                guard d < 10 else { throw .malformedField }
                nanos += Int64(d) * scale
                scale /= 10
            }
        }
        return (Int64(h) * 3600 + Int64(m) * 60 + Int64(s)) * 1_000_000_000 + nanos
    }

    /// NMEA `dddmm.mmmm` as degrees (positive), checked against `limit` degrees.
    func angle(limit: Double) throws(RejectReason) -> Double {
        var i = start
        var whole = 0
        var wholeDigits = 0
        while i < end, bytes[i] &- 48 < 10 {
            if wholeDigits >= 6 { throw .outOfRange }
            whole = whole * 10 + Int(bytes[i] &- 48)
            wholeDigits += 1
            i += 1
        }
        // gpsd insists on the decimal point too: without it degrees and minutes are ambiguous.
        guard wholeDigits >= 3, i < end, bytes[i] == UInt8(ascii: ".") else { throw .malformedField }
        i += 1
        var fraction: Int64 = 0
        var fractionDigits = 0
        while i < end {
            let d = bytes[i] &- 48
            guard d < 10 else { throw .malformedField }
            if fractionDigits < 15 { fraction = fraction * 10 + Int64(d); fractionDigits += 1 }
            i += 1
        }
        let minutes = Double(whole % 100) + Double(fraction) / powersOfTen[fractionDigits]
        guard minutes < 60 else { throw .outOfRange }
        let degrees = Double(whole / 100) + minutes / 60
        guard degrees <= limit else { throw .outOfRange }
        return degrees
    }

    func twoDigits(at i: Int) -> Int { Int(bytes[i] &- 48) * 10 + Int(bytes[i + 1] &- 48) }

    /// Whether the field is exactly the given ASCII text.
    func equals(_ text: StaticString) -> Bool {
        guard text.utf8CodeUnitCount == count else { return false }
        let p = text.utf8Start
        for k in 0..<count where bytes[start + k] != p[k] { return false }
        return true
    }
}

let powersOfTen: [Double] = [
    1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
]

/// The fields of one framed sentence. Field 0 is the address (talker + type).
/// Indexing past the last field yields an empty field, as gpsd does, so parsers of
/// optional trailing fields need no bounds checks.
struct NMEAFields {
    let bytes: UnsafeRawBufferPointer
    /// start/end byte offsets, two per field.
    let bounds: UnsafeMutableBufferPointer<Int32>
    let count: Int

    subscript(_ index: Int) -> NMEAField {
        guard index < count else { return NMEAField(bytes: bytes, start: 0, end: 0) }
        return NMEAField(bytes: bytes, start: Int(bounds[2 * index]), end: Int(bounds[2 * index + 1]))
    }

    /// Signed latitude/longitude from the four fields starting at `index`
    /// (`ddmm.mm,N,dddmm.mm,E`); nil when any is empty.
    func position(at index: Int) throws(RejectReason) -> (latitude: Double, longitude: Double)? {
        let lat = self[index], ns = self[index + 1], lon = self[index + 2], ew = self[index + 3]
        if lat.isEmpty || ns.isEmpty || lon.isEmpty || ew.isEmpty { return nil }
        var latitude = try lat.angle(limit: 90)
        var longitude = try lon.angle(limit: 180)
        switch ns.first {
        case UInt8(ascii: "N"): break
        case UInt8(ascii: "S"): latitude = -latitude
        default: throw .malformedField
        }
        switch ew.first {
        case UInt8(ascii: "E"): break
        case UInt8(ascii: "W"): longitude = -longitude
        default: throw .malformedField
        }
        return (latitude, longitude)
    }
}
