import Crypto

/// SHA-256 for the hash chain, from swift-crypto (BoringSSL on Linux): the store only
/// adapts it to byte arrays. The FIPS 180-4 vectors in `SHA256Tests` check the wiring.
public struct SHA256Hasher {
    private var hasher = Crypto.SHA256()

    /// Creates a hasher with nothing hashed.
    public init() {}

    /// Hashes `bytes` next.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Hashes the bytes of `input` next.
    public mutating func update(_ input: UnsafeRawBufferPointer) {
        hasher.update(bufferPointer: input)
    }

    /// The 32-byte digest of everything hashed.
    public mutating func finalize() -> [UInt8] {
        Array(hasher.finalize())
    }

    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash<Bytes: Sequence>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        var h = SHA256Hasher()
        h.update(bytes)
        return h.finalize()
    }
}

extension Array where Element == UInt8 {
    /// Lower-case hex, as `verify` prints hashes.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for b in self {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
