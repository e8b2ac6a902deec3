import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A TCP connection to a hub on loopback made with plain sockets, for what an HTTP
/// client never sends: half-sent heads, oversized heads, connections left idle.
public final class RawConnection {
    public struct Failure: Error, CustomStringConvertible { public var description: String }
    public let fd: Int32

    /// Connects to 127.0.0.1:`port` from `source` (another loopback address is another
    /// client to the hub's fair share); reads give up after `timeout` seconds.
    public init(port: Int, timeout: Double = 10, source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "bind \(source): \(reason)")
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: "connect: \(reason)")
        }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    public func send(_ text: String) throws {
        var bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Everything the hub sends until it closes the connection (`closed`) or the read timeout passes.
    public func readUntilClosed() -> (text: String, closed: Bool) {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n > 0 { data.append(contentsOf: buffer[0..<n]); continue }
            let closed = n == 0 || errno == ECONNRESET
            return (String(decoding: data, as: UTF8.self), closed)
        }
    }

    /// False once the peer closed the connection (a read would return end of file at once).
    public var isOpen: Bool {
        var probe = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&probe, 1, 0) == 1 else { return true }
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) > 0
    }

    /// The status code of the first response, read up to the end of its head (nil on timeout or close).
    public func readStatus() -> Int? {
        var data = Data()
        var byte: UInt8 = 0
        while !data.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            data.append(byte)
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\r\n").first ?? ""
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
