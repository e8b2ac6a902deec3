import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// A real datagram socket standing in for systemd's notify socket.
public final class NotifySocket {
    public let fd: Int32
    public let name: String
    public let directory: String?

    /// `abstract`: an abstract-namespace name (`@…`) instead of a file in a temp dir.
    public init(abstract: Bool = false) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if abstract {
            directory = nil
            name = "@bikepath-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        } else {
            directory = try TempDir().path
            name = directory! + "/notify"
        }
        // As sd_notify reads NOTIFY_SOCKET: a leading "@" is the abstract namespace (a NUL).
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(name.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path), "socket name too long: \(name)")
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count + (abstract ? 0 : 1)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        try #require(rc == 0, "bind: \(String(cString: strerror(errno)))")
    }

    deinit {
        close(fd)
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// Every datagram waiting now (none waiting → []).
    public func drain() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n < 0 { return messages }
            messages.append(String(decoding: buffer[0..<n], as: UTF8.self))
        }
    }
}
