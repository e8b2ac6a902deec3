/// How one scan element sits in a buffer record (sysfs `scan_elements/*_type`, e.g.
/// `le:s16/16>>0`), and the conversion of its bytes to an integer. Decoded here rather
/// than per sample through libiio so an unsupported layout is refused up front, once.
public struct IIOScanFormat: Sendable, Equatable {
    /// Storage size in bits (the record slot).
    public var storageBits: Int
    /// Significant bits within the slot.
    public var bits: Int
    public var shift: Int
    public var isSigned: Bool
    public var isBigEndian: Bool
    public var repeatCount: Int

    /// Creates a format from the fields of a sysfs `*_type` value.
    public init(storageBits: Int, bits: Int, shift: Int, isSigned: Bool, isBigEndian: Bool, repeatCount: Int = 1) {
        self.storageBits = storageBits
        self.bits = bits
        self.shift = shift
        self.isSigned = isSigned
        self.isBigEndian = isBigEndian
        self.repeatCount = repeatCount
    }

    /// The sysfs spelling, for log lines.
    public var description: String {
        "\(isBigEndian ? "be" : "le"):\(isSigned ? "s" : "u")\(bits)/\(storageBits)"
            + (repeatCount > 1 ? "X\(repeatCount)" : "") + ">>\(shift)"
    }

    /// Why this source cannot read the element, or nil when it can.
    public var unsupportedReason: String? {
        if ![8, 16, 32, 64].contains(storageBits) { return "storage of \(storageBits) bits (only 8/16/32/64)" }
        if bits < 1 || bits + shift > storageBits { return "\(bits) bits shifted by \(shift) do not fit \(storageBits)" }
        if repeatCount > 1 { return "repeated elements (X\(repeatCount))" }
        return nil
    }

    public var storageBytes: Int { storageBits / 8 }

    /// The element's integer value from its bytes at `pointer` (must be supported).
    @inline(__always)
    public func value(at pointer: UnsafeRawPointer) -> Int64 {
        var raw: UInt64
        switch storageBits {
        case 8: raw = UInt64(pointer.loadUnaligned(as: UInt8.self))
        case 16:
            let v = pointer.loadUnaligned(as: UInt16.self)
            raw = UInt64(isBigEndian ? UInt16(bigEndian: v) : UInt16(littleEndian: v))
        case 32:
            let v = pointer.loadUnaligned(as: UInt32.self)
            raw = UInt64(isBigEndian ? UInt32(bigEndian: v) : UInt32(littleEndian: v))
        default:
            let v = pointer.loadUnaligned(as: UInt64.self)
            raw = isBigEndian ? UInt64(bigEndian: v) : UInt64(littleEndian: v)
        }
        raw >>= UInt64(shift)
        if bits < 64 {
            raw &= (UInt64(1) << UInt64(bits)) - 1
            if isSigned, raw & (UInt64(1) << UInt64(bits - 1)) != 0 {
                raw |= ~((UInt64(1) << UInt64(bits)) - 1)
            }
        }
        return Int64(bitPattern: raw)
    }
}

/// An IIO channel's conversion to SI units: value = (raw + offset) × scale.
public struct IIOScaling: Sendable, Equatable {
    public var scale: Double
    public var offset: Double
    /// Creates a conversion; the identity by default.
    public init(scale: Double = 1, offset: Double = 0) {
        self.scale = scale
        self.offset = offset
    }

    /// The SI value of a raw sample: (raw + offset) × scale.
    @inline(__always)
    public func apply(_ raw: Int64) -> Float { Float((Double(raw) + offset) * scale) }
}
