/// Ids made on the device (sync keys), as UUIDs in the usual upper-case text form.
///
/// Most are random (version 4), from `SystemRandomNumberGenerator` (getrandom)
/// because Foundation's `UUID()` opens /dev/urandom on every call here, which
/// showed up as the second cost of storing an event. A trip's id is derived
/// (version 8, RFC 9562): SHA-256 of the store's own random `device_key` and the
/// trip's start, so replaying a recording into the same store again — or again
/// after a `kill -9` — gives the same trip the same id, and the hub sees one trip.
enum DeviceID {
    static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = rng.next() as UInt64, b = rng.next() as UInt64
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> UInt64(8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> UInt64(8 * i))
        }
        return text(bytes, version: 4)
    }

    /// The id of the trip that started at `start` (sample time, ns) and `utc` (ns, if known).
    static func trip(deviceKey: String, start: Int64, utc: Int64?) -> String {
        var input = Array("bikepath-trip\u{0}\(deviceKey)\u{0}".utf8)
        // Typed: Swift 6.2 finds the untyped literal ambiguous.
        let fields: [Int64] = [start, utc ?? 0, utc == nil ? 0 : 1]
        for value in fields {
            for i in 0..<8 { input.append(UInt8(truncatingIfNeeded: value >> Int64(8 * i))) }
        }
        return text(Array(SHA256Hasher.hash(input).prefix(16)), version: 8)
    }

    /// A fresh device key: 16 random bytes as hex.
    static func makeKey() -> String { String(make().filter { $0 != "-" }) }

    private static func text(_ raw: [UInt8], version: UInt8) -> String {
        var bytes = raw
        bytes[6] = (bytes[6] & 0x0f) | (version << 4)
        bytes[8] = (bytes[8] & 0x3f) | 0x80  // RFC 4122 variant
        let hex: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        var out = ""
        out.reserveCapacity(36)
        for (i, byte) in bytes.enumerated() {
            if i == 4 || i == 6 || i == 8 || i == 10 { out.append("-") }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0f)])
        }
        return out
    }
}
