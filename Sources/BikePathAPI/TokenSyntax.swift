/// What a device token may look like, checked where it is loaded (the device's
/// token file, the hub's tokens file and `bikepath-hub tokens`), so that a bad
/// one is a configuration error at start, not a failed request later. The
/// problem never quotes the token: it says where and what, not the secret.
public enum TokenSyntax {
    /// 128 bits of randomness in base64 or hex is 22–32 characters.
    public static let minLength = 16
    /// Well under the hub's header limits (8 KiB per field).
    public static let maxLength = 4096

    /// Why a token was refused.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case tooShort(length: Int)
        case tooLong(length: Int)
        /// 1-based position and the byte's value, e.g. a control byte 0x01.
        case badCharacter(position: Int, byte: UInt8)

        public var description: String {
            switch self {
            case .tooShort(let n): "the token has \(n) characters; it needs at least \(TokenSyntax.minLength)"
            case .tooLong(let n): "the token has \(n) characters; at most \(TokenSyntax.maxLength)"
            case .badCharacter(let p, let b):
                "character \(p) of the token is not allowed (byte 0x\(String(b, radix: 16, uppercase: true))); "
                    + "a token is letters, digits and - . _ ~ + /, optionally ending in = (RFC 6750 b64token)"
            }
        }
    }

    /// nil when `token` is a valid bearer token (RFC 6750 §2.1 b64token) of an accepted length.
    public static func problem(_ token: String) -> Problem? {
        let bytes = Array(token.utf8)
        var padding = false
        for (i, c) in bytes.enumerated() {
            let allowed: Bool
            if c == UInt8(ascii: "=") {
                allowed = i > 0
                padding = true
            } else {
                allowed = !padding && isToken68Byte(c)
            }
            if !allowed { return .badCharacter(position: i + 1, byte: c) }
        }
        if bytes.count < minLength { return .tooShort(length: bytes.count) }
        if bytes.count > maxLength { return .tooLong(length: bytes.count) }
        return nil
    }

    static func isToken68Byte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A)
            || c == UInt8(ascii: "-") || c == UInt8(ascii: ".") || c == UInt8(ascii: "_") || c == UInt8(ascii: "~")
            || c == UInt8(ascii: "+") || c == UInt8(ascii: "/")
    }
}
