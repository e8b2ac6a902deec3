import BikePathAPI
import Foundation

/// The device token, read from a file that only its owner may read. The value is
/// never logged or put in a URL: `description` hides it.
public struct DeviceToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    let value: String
    public var description: String { "DeviceToken(<hidden>)" }
    public var debugDescription: String { description }

    init(value: String) { self.value = value }

    /// Why the token file cannot be used; the messages never quote the token.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case tooOpen(path: String, mode: String)
        case empty(path: String)
        /// A control byte, a space inside, a length out of range: said without quoting the token.
        case invalid(path: String, TokenSyntax.Problem)
        public var description: String {
            switch self {
            case .unreadable(let p, let r): "cannot read the token file \(p): \(r)"
            case .tooOpen(let p, let m):
                "the token file \(p) has mode \(m): it must not be readable or writable by group or others (chmod 600 \(p))"
            case .empty(let p): "the token file \(p) holds no token"
            case .invalid(let p, let problem): "the token file \(p) holds no usable token: \(problem)"
            }
        }
    }

    /// Reads the token, refusing a file whose mode lets group or others read or write it,
    /// and a token that `TokenSyntax` refuses (so that it is never sent, nor echoed by an HTTP error).
    public static func read(path: String) throws -> DeviceToken {
        var st = stat()
        guard stat(path, &st) == 0 else { throw Problem.unreadable(path: path, reason: String(cString: strerror(errno))) }
        let mode = st.st_mode & 0o777
        if mode & 0o066 != 0 { throw Problem.tooOpen(path: path, mode: String(mode, radix: 8)) }
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Problem.unreadable(path: path, reason: "\(error.localizedDescription)")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw Problem.empty(path: path) }
        if let problem = TokenSyntax.problem(token) { throw Problem.invalid(path: path, problem) }
        return DeviceToken(value: token)
    }
}
