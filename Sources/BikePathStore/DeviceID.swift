/// Ids made on the device (sync keys): random (version 4) UUIDs in the usual
/// upper-case text form. Made from `SystemRandomNumberGenerator` (getrandom)
/// because Foundation's `UUID()` opens /dev/urandom on every call here, which
/// showed up as the second cost of storing an event.
enum DeviceID {
    static func make() -> String {
        var rng = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 16)
        let a = rng.next() as UInt64, b = rng.next() as UInt64
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> UInt64(8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> UInt64(8 * i))
        }
        bytes[6] = (bytes[6] & 0x0f) | 0x40  // version 4
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
