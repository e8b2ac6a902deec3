import BikePathAPI
import Foundation

/// One line of the tokens file: `DEVICE-ID TOKEN [revoked]`. Only the token's
/// SHA-256 is kept, so nothing read here can be printed by mistake.
public struct TokenFileEntry: Sendable, Equatable {
    public let device: String
    public let tokenSHA256: String
    public let revoked: Bool
    /// Where it is in the file (1-based), for messages.
    public var line = 0
}

/// The hub's tokens file (`serve --tokens FILE`), read at start and applied by
/// `HubStore.apply(tokenFile:)` under the rules of docs/sync.md ("Device tokens").
public enum TokenFile {
    /// Why a tokens file or token file was refused.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        /// Others may read or write it: anyone on the machine could take a device's place.
        case tooOpen(path: String, mode: String)
        case badLine(path: String, line: Int, why: String)

        public var description: String {
            switch self {
            case .unreadable(let p, let r): "cannot read the tokens file \(p): \(r)"
            case .tooOpen(let p, let m):
                "the tokens file \(p) has mode \(m): others must not read or write it (chmod 600 \(p), or 640 with the hub's group)"
            case .badLine(let p, let n, let why): "\(p):\(n): \(why)"
            }
        }
    }

    /// The entries of the tokens file at `path`; refused whole at its first bad line.
    public static func read(path: String) throws(Problem) -> [TokenFileEntry] {
        let text = try readSecret(path: path)
        var entries: [TokenFileEntry] = []
        var lineOfDevice: [String: Int] = [:], lineOfToken: [String: Int] = [:]
        for (i, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let n = i + 1
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).map(String.init)
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            guard words.count == 2 || (words.count == 3 && words[2] == "revoked") else {
                throw .badLine(path: path, line: n, why: "expected 'DEVICE-ID TOKEN [revoked]'")
            }
            guard Validation.isValidID(words[0]) else {
                throw .badLine(path: path, line: n, why: "a device id is 1-64 characters of A-Z a-z 0-9 - _")
            }
            if let problem = TokenSyntax.problem(words[1]) { throw .badLine(path: path, line: n, why: "\(problem)") }
            let hash = HubHash.token(words[1])
            if let first = lineOfDevice.updateValue(n, forKey: words[0]) {
                throw .badLine(path: path, line: n, why: "device \(words[0]) is already on line \(first)")
            }
            if let first = lineOfToken.updateValue(n, forKey: hash) {
                throw .badLine(path: path, line: n, why: "the same token as on line \(first): each device needs its own")
            }
            entries.append(TokenFileEntry(device: words[0], tokenSHA256: hash, revoked: words.count == 3, line: n))
        }
        return entries
    }

    /// The text of a file holding secrets, refused when others may read or write it.
    public static func readSecret(path: String) throws(Problem) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        if st.st_mode & 0o007 != 0 { throw .tooOpen(path: path, mode: String(st.st_mode & 0o777, radix: 8)) }
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw .unreadable(path: path, reason: error.localizedDescription)
        }
    }
}
