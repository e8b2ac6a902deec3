import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A loopback TCP server that plays a script to each client, then closes the connection:
/// a stand-in for a misbehaving gpsd at the protocol boundary only.
final class ScriptedTCPServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let state = Mutex<(stopped: Bool, accepted: Int)>((false, 0))

    /// `script(n)` is the bytes sent to the n-th client (0-based).
    init(script: @escaping @Sendable (Int) -> [UInt8]) throws {
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = listener
        guard withUnsafePointer(to: &addr, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }) == 0,
            listen(fd, 4) == 0
        else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        port = Int(UInt16(bigEndian: addr.sin_port))
        let thread = Thread { [self] in
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 {  // shut down by stop(); closed here, not there (stop() says why)
                    close(fd)
                    return
                }
                _ = fcntl(client, F_SETFD, FD_CLOEXEC)
                let n = state.withLock { state -> Int in
                    state.accepted += 1; return state.accepted - 1
                }
                // Read the client's WATCH command first, as gpsd would, then answer.
                var scratch = [UInt8](repeating: 0, count: 512)
                var tv = timeval(tv_sec: 0, tv_usec: 200_000)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
                _ = recv(client, &scratch, scratch.count, 0)
                let bytes = script(n)
                _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                usleep(100_000)
                // shutdown, not only close: a child another test spawned meanwhile may have
                // inherited the socket, and close alone would then never end the connection.
                shutdown(client, Int32(SHUT_RDWR))
                close(client)
            }
        }
        thread.start()
    }

    var connections: Int { state.withLock { $0.accepted } }

    /// Ends the accept loop, whose thread closes the socket: closed here, its number could go
    /// to another test's socket while the thread, still answering, comes back to accept on it.
    func stop() {
        state.withLock { $0.stopped = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }
}
