import Foundation

/// The CLI's side of the status socket (`bikepathd status`, `bikepathd tail`).
public enum StatusClient {
    /// Asks for one status. A connection dropped before any reply (the daemon made room
    /// for a newcomer while this request was still on its way: a busy socket) is tried
    /// again, up to 3 times within the timeout: asking for a status changes nothing.
    public static func fetchStatus(path: String, timeoutSeconds: Int = 5) throws(StatusSocketError) -> DaemonStatus {
        let deadline = ProcessInfo.processInfo.systemUptime + Double(timeoutSeconds)
        var attempt = 1
        while true {
            do {
                return try fetchStatusOnce(path: path, deadline: deadline, timeoutSeconds: timeoutSeconds)
            } catch .dropped(let reason) {
                guard attempt < 3, ProcessInfo.processInfo.systemUptime < deadline else { throw .dropped(reason) }
                attempt += 1
            }
        }
    }

    private static func fetchStatusOnce(path: String, deadline: Double, timeoutSeconds: Int) throws(StatusSocketError) -> DaemonStatus {
        let fd = try connect(path, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        try sendRequest(fd, "status")
        var reader = LineReader(fd: fd, deadline: deadline)
        let line: String?
        do {
            line = try reader.next()
        } catch .system(_, ECONNRESET) {
            throw .dropped("reset")
        }
        guard let line else { throw .dropped("closed") }
        do {
            return try StatusJSON.decode(DaemonStatus.self, from: line)
        } catch {
            throw .badReply(line)
        }
    }

    /// Streams events until `handle` returns false or the daemon goes away
    /// (returns normally then: a restarting daemon is not an error for `tail`).
    public static func tail(path: String, handle: (DaemonEvent) -> Bool) throws(StatusSocketError) {
        let fd = try connect(path, timeoutSeconds: 0)
        defer { close(fd) }
        try sendRequest(fd, "tail")
        var reader = LineReader(fd: fd)
        while let line = try reader.next() {
            // The decoder's error is replaced by the line itself, which says more to the rider.
            guard let event = try? StatusJSON.decode(DaemonEvent.self, from: line) else { throw .badReply(line) }
            if !handle(event) { return }
        }
    }

    /// True when something accepts connections on `path` (a live daemon, not a stale file).
    static func isAnswering(_ path: String) -> Bool {
        // Any failure to connect means nobody answers: that is the question asked.
        guard let fd = try? connect(path, timeoutSeconds: 1) else { return false }
        close(fd)
        return true
    }

    static func connect(_ path: String, timeoutSeconds: Int) throws(StatusSocketError) -> Int32 {
        guard let made = UnixAddress.make(path) else { throw .badPath(path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        if timeoutSeconds > 0 {
            // SO_SNDTIMEO also bounds connect(2) on a Unix socket whose backlog is full
            // (a daemon out of descriptors); SO_RCVTIMEO bounds each read.
            var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = made.0
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, made.1) }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            if e == EAGAIN || e == EINPROGRESS { throw .notRunning(path, "no answer within \(timeoutSeconds) s") }
            throw .notRunning(path, String(cString: strerror(e)))
        }
        return fd
    }

    /// Sends `request` and decodes the one line that answers it (`mark`, `sync`). A line that
    /// is not a `Reply` is `badReply` with the line itself, which says more to the rider than
    /// the decoder's error.
    static func ask<Reply: Decodable>(_ path: String, _ request: String, timeoutSeconds: Int) throws(StatusSocketError) -> Reply {
        let fd = try connect(path, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        try sendRequest(fd, request)
        var reader = LineReader(fd: fd)
        guard let line = try reader.next() else { throw .badReply("(connection closed)") }
        do {
            return try StatusJSON.decode(Reply.self, from: line)
        } catch {
            throw .badReply(line)
        }
    }

    static func sendRequest(_ fd: Int32, _ request: String) throws(StatusSocketError) {
        let bytes = Array((request + "\n").utf8)
        let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        guard n == bytes.count else { throw .system("send", errno) }
    }
}

/// Newline-delimited reading from a socket.
struct LineReader {
    let fd: Int32
    /// systemUptime after which a read gives up (a daemon that trickles bytes); nil: none.
    let deadline: Double?
    private var buffer: [UInt8] = []
    init(fd: Int32, deadline: Double? = nil) {
        self.fd = fd
        self.deadline = deadline
    }

    /// The next line without its newline; nil at end of stream.
    mutating func next() throws(StatusSocketError) -> String? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if let deadline, ProcessInfo.processInfo.systemUptime > deadline { throw .badReply("(no reply within the timeout)") }
            let n = read(fd, &chunk, chunk.count)
            if n == 0 { return nil }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { throw .badReply("(no reply within the timeout)") }
                throw .system("read", errno)
            }
            buffer += chunk[0..<n]
        }
    }
}

extension StatusClient {
    /// Tells the daemon the rider just passed an obstacle of `kind`; returns what it stored.
    public static func mark(path: String, kind: String?) throws(StatusSocketError) -> MarkReply {
        try ask(path, kind.map { "mark \($0)" } ?? "mark", timeoutSeconds: Int(StatusServer.markTimeout) + 5)
    }
}
