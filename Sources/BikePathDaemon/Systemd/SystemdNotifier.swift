import Foundation

/// sd_notify(3) without libsystemd: one datagram per message to the Unix socket
/// named by NOTIFY_SOCKET (a path, or an abstract name written with a leading `@`).
/// Without NOTIFY_SOCKET (not started by systemd) every call does nothing.
public final class SystemdNotifier: Sendable {
    public let socketName: String?
    /// Half of WATCHDOG_USEC, when systemd asked for pings and they are for this process.
    public let watchdogInterval: Duration?

    /// Reads NOTIFY_SOCKET and WATCHDOG_USEC/WATCHDOG_PID from `environment`; the watchdog
    /// applies only when WATCHDOG_PID is `pid` (or absent).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32 = getpid()) {
        let name = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketName = name
        watchdogInterval = Self.watchdogInterval(environment: environment, pid: pid)
    }

    public var isEnabled: Bool { socketName != nil }

    /// WATCHDOG_USEC → ping every half of it (sd_watchdog_enabled's advice). A
    /// WATCHDOG_PID naming another process means the pings are not ours to send.
    public static func watchdogInterval(environment: [String: String], pid: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], let ownerPID = Int32(owner), ownerPID != pid { return nil }
        return .microseconds(Int64(min(usec, UInt64(Int64.max))) / 2)
    }

    /// READY=1 (with STATUS= when given): start-up is done.
    /// - Throws: `NotifyError` when the datagram cannot be sent.
    public func ready(status: String? = nil) throws { try send(["READY=1"] + (status.map { ["STATUS=\($0)"] } ?? [])) }
    /// STATUS=: a line `systemctl status` shows.
    /// - Throws: `NotifyError` when the datagram cannot be sent.
    public func status(_ text: String) throws { try send(["STATUS=\(text)"]) }
    /// WATCHDOG=1: the service is alive.
    /// - Throws: `NotifyError` when the datagram cannot be sent.
    public func watchdogPing() throws { try send(["WATCHDOG=1"]) }
    /// STOPPING=1: the shutdown began.
    /// - Throws: `NotifyError` when the datagram cannot be sent.
    public func stopping() throws { try send(["STOPPING=1"]) }
    /// For SIGHUP: RELOADING=1 first, READY=1 when the new configuration is in force.
    public func reloading() throws { try send(["RELOADING=1"]) }

    /// Sends `KEY=VALUE` lines as one datagram.
    public func send(_ assignments: [String]) throws(NotifyError) {
        guard let socketName else { return }
        let message = assignments.joined(separator: "\n")
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        defer { close(fd) }
        guard let made = UnixAddress.make(socketName) else { throw .badSocketName(socketName) }
        var address = made.0
        let length = made.1
        let sent = message.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    // Never block: a receiver that does not read (a stuck manager, a test)
                    // must not stall the pipeline or the shutdown; the message is dropped.
                    sendto(fd, text, strlen(text), Int32(MSG_NOSIGNAL | MSG_DONTWAIT), $0, length)
                }
            }
        }
        guard sent >= 0 else { throw .system("sendto \(socketName)", errno) }
    }
}

/// Why a notification could not be sent: an unusable NOTIFY_SOCKET, or a failed system call
/// (with errno).
public enum NotifyError: Error, Equatable, CustomStringConvertible {
    case badSocketName(String)
    case system(String, Int32)

    public var description: String {
        switch self {
        case .badSocketName(let name): "NOTIFY_SOCKET \(name) is not a usable Unix socket name"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}

/// sockaddr_un for a path or an abstract name (`@name` → leading NUL byte,
/// and the length counts only the bytes used, as abstract names are not NUL-terminated).
enum UnixAddress {
    static func make(_ name: String) -> (sockaddr_un, socklen_t)? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, abstract || bytes.first == UInt8(ascii: "/") else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)!
        let length = pathOffset + bytes.count + (abstract ? 0 : 1)
        return (address, socklen_t(length))
    }
}
