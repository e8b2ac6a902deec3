import Foundation

/// Why the status socket cannot be served or asked: a bad path, another daemon on it, a
/// non-socket in the way, no daemon answering, a reply that cannot be read or never came, or a failed system
/// call (with errno).
public enum StatusSocketError: Error, Equatable, CustomStringConvertible {
    case badPath(String)
    case alreadyRunning(String)
    case notASocket(String)
    case notRunning(String, String)
    case badReply(String)
    /// The connection was reset or closed before any reply (how: "reset", "closed").
    case dropped(String)
    case system(String, Int32)

    public var description: String {
        let key = ConfigurationKey.path(\.status.socket), flag = ConfigurationKey.flag(\.status.socket)
        return switch self {
        case .badPath(let p):
            "\(p) is not a usable Unix socket path (empty, or longer than 107 bytes once made absolute): "
                + "choose a shorter one with --\(flag) or \(key)"
        case .alreadyRunning(let p): "another bikepathd already answers on \(p)"
        case .notASocket(let p): "\(p) exists and is not a socket; refusing to replace it (check \(key) / --\(flag))"
        case .notRunning(let p, let why): "no bikepathd answers on \(p) (\(why)); is the service running?"
        case .badReply(let text): "unexpected reply from the daemon: \(text)"
        case .dropped(let how): "the daemon's status socket \(how) the connection before replying (busy: too many clients?)"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}
