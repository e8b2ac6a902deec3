import CLibMD

/// SHA-256 for the hash chain, from libmd (`SHA256Init`/`Update`/`Final`, FIPS 180-4), the
/// BSD digest library that Debian's dpkg links, so every Debian system has it. Not swift-crypto:
/// on Linux that compiles its own BoringSSL (~440 C files), the longest part of the arm64
/// package's build, for a hash of a few kilobytes a second. The store only adapts it to byte
/// arrays; the FIPS 180-4 vectors in `SHA256Tests` check the wiring.
public struct SHA256Hasher {
    private var context = SHA2_CTX()

    /// Creates a hasher with nothing hashed.
    public init() { SHA256Init(&context) }

    /// Hashes `bytes` next.
    public mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { update(UnsafeRawBufferPointer($0)) }
        if done == nil { Array(bytes).withUnsafeBytes { update($0) } }
    }

    /// Hashes the bytes of `input` next.
    public mutating func update(_ input: UnsafeRawBufferPointer) {
        guard let base = input.baseAddress, !input.isEmpty else { return }
        SHA256Update(&context, base.assumingMemoryBound(to: UInt8.self), input.count)
    }

    /// The 32-byte digest of everything hashed; the hasher starts again empty.
    public mutating func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        digest.withUnsafeMutableBufferPointer { SHA256Final($0.baseAddress, &context) }
        SHA256Init(&context)
        return digest
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
