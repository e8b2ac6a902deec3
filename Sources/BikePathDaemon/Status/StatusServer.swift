import BikePathAPI
import BikePathServing
import Foundation

/// The daemon's side of the status socket: a Unix stream socket (mode 0660)
/// served by one dedicated thread with poll(2), so a slow or stuck client can
/// never block the pipeline.
///
/// Protocol (text lines): the client sends `status\n` and gets one JSON line of
/// `DaemonStatus`, then the connection closes; or `tail\n` and gets every
/// `DaemonEvent` published from then on, one JSON line each. A tail client that
/// reads too slowly loses events (its buffer is capped) and is told so by a
/// `dropped` event when it catches up. `mark [KIND]\n` tells the daemon the rider just
/// passed an obstacle; the one JSON line of `MarkReply` comes when the mark is stored
/// (at the next fix, within `markTimeout` seconds, else an error line).
/// A tail client whose buffer stays full for
/// `slowReaderSeconds` is disconnected.
///
/// Limits (`ConnectionPolicy.statusSocket`, docs/connections.md): at most `maximumClients`
/// (32) connections, 256 KiB buffered per client, so the server holds at most ~8 MiB. When
/// all are taken, a newcomer takes the slot of the longest-waiting client that has not
/// yet asked anything, from the user (uid) holding the most such slots; a user may hold
/// `tailShare` (8) tail clients. So clients that connect and say nothing, however fast
/// they reconnect, cannot keep `status` and `mark` out (40 of them did, for 30 s). At most
/// `acceptBatch` connections are accepted per poll round, so a newcomer's request is read
/// before 32 more can push it out;
/// when accept(2) fails for lack of file descriptors (EMFILE/ENFILE), or a client
/// would take one of the last `descriptorHeadroom` (16) below the soft limit, it
/// stops accepting for `acceptBackoffSeconds` instead of spinning on a readable socket.
public final class StatusServer: @unchecked Sendable {
    public let path: String
    private let statusProvider: @Sendable () -> DaemonStatus
    private let markHandler: MarkHandler?
    /// A mark not answered by then gets an error line: the pipeline is stuck.
    static let markTimeout = 10.0
    private let requestTimeout: Double
    private let listenFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = NSLock()
    private var clients: [Int32: Client] = [:]
    private var running = true
    private var finished = false
    private let done = NSCondition()
    static let maximumBuffered = 256 * 1024
    /// 32 × 256 KiB = 8 MiB at most; a bike computer has one or two local readers.
    public static let defaultMaximumClients = ConnectionPolicy.statusSocket.maxConnections
    private let maximumClients: Int
    private let tailShare: Int
    /// Accepted per poll round (see above): a quarter of the slots.
    static let acceptBatch = 8
    private let slowReaderSeconds: Double
    static let acceptBackoffSeconds = 0.5
    private var acceptPausedUntil = 0.0

    private struct Client {
        var input: [UInt8] = []
        var output: [UInt8] = []
        var tailing = false
        var closeWhenFlushed = false
        var dropped = 0
        var connectedAt = ProcessInfo.processInfo.systemUptime
        /// A mark was handed to the daemon; its reply is due.
        var awaitingMark = false
        /// Tells this client from a later one on the same descriptor number.
        var serial = 0
        /// When its buffer overflowed (events started being dropped); nil while it keeps up.
        var fullSince: Double?
        /// The peer's user (SO_PEERCRED), for the fair share.
        var uid: UInt32 = .max
        /// Connected and has not asked anything yet: the first to make room.
        var waiting: Bool { !tailing && !awaitingMark && !closeWhenFlushed }
    }
    private var nextSerial = 0
    /// Device and inode of the socket file this server made: at stop, the file at `path` is
    /// removed only if it is still that one (a file put there meanwhile is not ours to delete).
    private let socketIdentity: (dev_t, ino_t)?

    /// Binds the socket (replacing a stale one left by a crash, refusing if
    /// another daemon answers on it, or if PATH is anything but a socket: a
    /// mistyped path must never delete a file) and starts serving.
    /// `requestTimeoutSeconds`: a client that has not sent a whole request by
    /// then is disconnected (idle connections would otherwise pile up).
    /// `maximumClients`: connections beyond it are closed at once. `slowReaderSeconds`:
    /// a tail client whose buffer stays full this long is disconnected.
    public init(
        path: String, permissions: mode_t = 0o660,
        requestTimeoutSeconds: Double = ConnectionPolicy.statusSocket.headerTimeoutSeconds,
        maximumClients: Int = StatusServer.defaultMaximumClients, tailShare: Int = ConnectionPolicy.statusSocket.perClient,
        slowReaderSeconds: Double = 10,
        status: @escaping @Sendable () -> DaemonStatus, mark: MarkHandler? = nil
    ) throws(StatusSocketError) {
        self.path = path
        self.markHandler = mark
        self.requestTimeout = requestTimeoutSeconds
        self.maximumClients = maximumClients
        self.tailShare = max(1, min(tailShare, maximumClients))
        self.slowReaderSeconds = slowReaderSeconds
        self.statusProvider = status
        guard let made = UnixAddress.make(path) else { throw .badPath(path) }
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path) }
            if StatusClient.isAnswering(path) { throw .alreadyRunning(path) }
            unlink(path)  // a stale socket: nobody answers on it
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var address = made.0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, made.1) }
        }
        guard bound == 0 else { let e = errno; close(fd); throw .system("bind \(path)", e) }
        guard chmod(path, permissions) == 0 else { let e = errno; close(fd); throw .system("chmod \(path)", e) }
        var socketFile = stat()
        socketIdentity = lstat(path, &socketFile) == 0 ? (socketFile.st_dev, socketFile.st_ino) : nil
        guard listen(fd, 16) == 0 else { let e = errno; close(fd); throw .system("listen", e) }
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { let e = errno; close(fd); throw .system("pipe", e) }
        for end in pipeFDs { Self.setNonBlockingCloseOnExec(end) }
        listenFD = fd
        wakeRead = pipeFDs[0]
        wakeWrite = pipeFDs[1]
        Self.setNonBlockingCloseOnExec(fd)
        let thread = Thread { [self] in serve() }
        thread.name = "status-socket"
        thread.start()
    }

    /// Sends an event to every tail client. Cheap and never blocks: it only
    /// appends to buffers and wakes the server thread.
    public func publish(_ event: DaemonEvent) {
        let line = Array((JSONText.snakeCaseLine(event) + "\n").utf8)
        lock.lock()
        for (fd, var client) in clients where client.tailing {
            if client.output.count + line.count > Self.maximumBuffered {
                client.dropped += 1
                if client.fullSince == nil { client.fullSince = ProcessInfo.processInfo.systemUptime }
            } else {
                client.fullSince = nil
                if client.dropped > 0 {
                    client.output += Self.droppedLine(client.dropped)
                    client.dropped = 0
                }
                client.output += line
            }
            clients[fd] = client
        }
        lock.unlock()
        wake()
    }

    /// Closes every connection, removes the socket file, and returns once the thread is done.
    public func stop() {
        lock.lock()
        running = false
        lock.unlock()
        wake()
        done.lock()
        while !finished { done.wait() }
        done.unlock()
    }

    public var tailClientCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return clients.values.filter(\.tailing).count
    }

    /// Descriptors kept free for the rest of the daemon (sqlite, libiio, libgps, libdispatch).
    static let descriptorHeadroom = 16

    /// The lowest descriptor number a client may get: the soft RLIMIT_NOFILE minus the
    /// headroom (descriptors are handed out lowest first, so this bounds how many are used).
    private static func descriptorCeiling() -> Int32 {
        var limit = rlimit()
        // RLIM_INFINITY is all ones: clamped, it leaves no ceiling.
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return .max }
        return Int32(clamping: Int64(clamping: limit.rlim_cur) - Int64(descriptorHeadroom))
    }

    // Glibc's module hides pipe2/accept4 (they need _GNU_SOURCE).
    private static func setNonBlockingCloseOnExec(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private static func droppedLine(_ count: Int) -> [UInt8] {
        let event = DaemonEvent(
            time: isoNow(), kind: "dropped", message: "\(count) events dropped: client too slow",
            fields: ["count": "\(count)"])
        return Array((JSONText.snakeCaseLine(event) + "\n").utf8)
    }

    private func serve() {
        while true {
            lock.lock()
            let keepRunning = running
            let accepting = ProcessInfo.processInfo.systemUptime >= acceptPausedUntil
            var fds = [
                pollfd(fd: listenFD, events: accepting ? Int16(POLLIN) : 0, revents: 0),
                pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
            ]
            for (fd, client) in clients {
                fds.append(pollfd(fd: fd, events: Int16(POLLIN) | (client.output.isEmpty ? 0 : Int16(POLLOUT)), revents: 0))
            }
            lock.unlock()
            if !keepRunning { break }
            // Wakes at least every 100 ms to disconnect clients that never ask.
            let n = poll(&fds, nfds_t(fds.count), 100)
            if n < 0 { if errno == EINTR { continue } else { break } }
            dropIdleClients()
            if fds[1].revents != 0 { drainWakePipe() }
            if fds[0].revents & Int16(POLLIN) != 0 { acceptClients() }
            for entry in fds.dropFirst(2) where entry.revents != 0 { service(entry.fd, revents: entry.revents) }
        }
        lock.lock()
        for fd in clients.keys { close(fd) }
        clients.removeAll()
        lock.unlock()
        close(listenFD)
        var now = stat()
        if let (dev, ino) = socketIdentity, lstat(path, &now) == 0, now.st_mode & S_IFMT == S_IFSOCK, now.st_dev == dev, now.st_ino == ino {
            unlink(path)
        }
        close(wakeRead)
        close(wakeWrite)
        done.lock()
        finished = true
        done.broadcast()
        done.unlock()
    }

    private func dropIdleClients() {
        let now = ProcessInfo.processInfo.systemUptime
        lock.lock()
        let idle = clients.filter { _, c in
            if c.tailing { return c.fullSince.map { now - $0 > slowReaderSeconds } ?? false }
            return !c.closeWhenFlushed && !c.awaitingMark && now - c.connectedAt > requestTimeout
        }.map(\.key)
        let unanswered = clients.filter { $0.value.awaitingMark && now - $0.value.connectedAt > Self.markTimeout }
            .map { ($0.key, $0.value.serial) }
        lock.unlock()
        for fd in idle { drop(fd) }
        for (fd, serial) in unanswered {
            answer(fd, serial: serial, .failure("the daemon did not store the mark within \(Int(Self.markTimeout)) s"))
        }
    }

    private func drainWakePipe() {
        var buffer = [UInt8](repeating: 0, count: 256)
        while read(wakeRead, &buffer, buffer.count) > 0 {}
    }

    private func acceptClients() {
        for _ in 0..<Self.acceptBatch {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                // Out of descriptors: the pending connection stays queued and the socket
                // readable, so polling it again at once would spin a core. Pause instead.
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    lock.lock()
                    acceptPausedUntil = ProcessInfo.processInfo.systemUptime + Self.acceptBackoffSeconds
                    lock.unlock()
                }
                return
            }
            if fd >= Self.descriptorCeiling() {
                // Keep the last descriptors for the rest of the daemon: libdispatch traps
                // (SIGILL) when it cannot open /proc to watch its threads, and the store and
                // the sensors need them too. Treated like EMFILE: close, pause accepting.
                close(fd)
                lock.lock()
                acceptPausedUntil = ProcessInfo.processInfo.systemUptime + Self.acceptBackoffSeconds
                lock.unlock()
                return
            }
            Self.setNonBlockingCloseOnExec(fd)
            let uid = Self.peerUID(fd)
            lock.lock()
            let evicted = clients.count >= maximumClients ? makeRoom() : nil
            let full = clients.count >= maximumClients
            if !full {
                nextSerial += 1
                clients[fd] = Client(serial: nextSerial, uid: uid)
            }
            lock.unlock()
            if let evicted { close(evicted) }
            if full { close(fd) }  // every slot asks or tails: the client sees the connection closed at once
        }
    }

    /// Frees the slot of the longest-waiting client that has asked nothing, of the user
    /// holding the most such slots; nil when every client is busy. Called with the lock held.
    private func makeRoom() -> Int32? {
        let waiting = clients.filter { $0.value.waiting }
        guard !waiting.isEmpty else { return nil }
        let perUser = Dictionary(grouping: waiting, by: { $0.value.uid })
        guard let (_, mostHeld) = perUser.max(by: { $0.value.count < $1.value.count }),
            let oldest = mostHeld.min(by: { $0.value.connectedAt < $1.value.connectedAt })
        else { return nil }
        clients[oldest.key] = nil
        return oldest.key
    }

    /// The connecting process's user, from the kernel (SO_PEERCRED); `.max` when unknown.
    private static func peerUID(_ fd: Int32) -> UInt32 {
        // struct ucred (pid, uid, gid); Glibc's module hides it behind _GNU_SOURCE.
        var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, 0, 0)
        var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return .max }
        return credentials.uid
    }

    private func service(_ fd: Int32, revents: Int16) {
        if revents & Int16(POLLIN) != 0 || revents & Int16(POLLHUP | POLLERR) != 0 {
            var buffer = [UInt8](repeating: 0, count: 1024)
            let n = read(fd, &buffer, buffer.count)
            if n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) { return drop(fd) }
            if n > 0 { received(fd, buffer[0..<n]) }
        }
        flush(fd)
    }

    private func received(_ fd: Int32, _ bytes: ArraySlice<UInt8>) {
        lock.lock()
        guard var client = clients[fd] else { lock.unlock(); return }
        client.input += bytes
        if let newline = client.input.firstIndex(of: UInt8(ascii: "\n")) {
            let request = String(decoding: client.input[..<newline], as: UTF8.self).trimmingSpaces()
            client.input.removeAll()
            lock.unlock()
            let reply: String?
            var tail = false
            switch (request, MarkRequest.parse(request)) {
            case ("status", _): reply = JSONText.snakeCaseLine(statusProvider())
            case ("tail", _):
                lock.lock()
                let tails = clients.values.filter { $0.tailing && $0.uid == client.uid }.count
                lock.unlock()
                if tails >= tailShare {
                    reply = JSONText.snakeCaseLine(["error": "this user already has \(tails) tail clients, the most one user may hold"])
                } else {
                    reply = nil
                    tail = true
                }
            case (_, .failure(let bad)?): reply = bad.reply.jsonLine()
            case (_, .success(let kind)?):
                if let markHandler {
                    reply = nil
                    // Set before the handler runs: it may answer at once, from another thread.
                    lock.lock()
                    clients[fd]?.awaitingMark = true
                    lock.unlock()
                    let serial = client.serial
                    markHandler(kind) { [weak self] answer in self?.answer(fd, serial: serial, answer) }
                } else {
                    reply = MarkReply.failure("this daemon takes no marks").jsonLine()
                }
            default: reply = JSONText.snakeCaseLine(["error": "unknown request \"\(request)\"; expected status, tail or mark [KIND]"])
            }
            lock.lock()
            guard var current = clients[fd], current.serial == client.serial else { lock.unlock(); return }
            if let reply {
                current.output += Array((reply + "\n").utf8)
                current.closeWhenFlushed = true
            }
            current.tailing = tail
            clients[fd] = current
        } else if client.input.count > 4096 {
            client.closeWhenFlushed = true
            clients[fd] = client
        } else {
            clients[fd] = client
        }
        lock.unlock()
    }

    /// The reply to a mark: sent once, to the client that asked (if still connected).
    private func answer(_ fd: Int32, serial: Int, _ reply: MarkReply) {
        lock.lock()
        guard var client = clients[fd], client.serial == serial, client.awaitingMark else { lock.unlock(); return }
        client.awaitingMark = false
        client.output += Array((reply.jsonLine() + "\n").utf8)
        client.closeWhenFlushed = true
        clients[fd] = client
        lock.unlock()
        wake()
    }

    private func flush(_ fd: Int32) {
        lock.lock()
        guard var client = clients[fd] else { lock.unlock(); return }
        while !client.output.isEmpty {
            let n = client.output.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN { break }
                lock.unlock()
                return drop(fd)
            }
            client.output.removeFirst(n)
            client.fullSince = nil  // it reads: slow, perhaps, but not stuck
        }
        let close = client.output.isEmpty && client.closeWhenFlushed
        clients[fd] = client
        lock.unlock()
        if close { drop(fd) }
    }

    private func drop(_ fd: Int32) {
        lock.lock()
        clients[fd] = nil
        lock.unlock()
        close(fd)
    }
}

/// Why the status socket cannot be served or asked: a bad path, another daemon on it, a
/// non-socket in the way, no daemon answering, a reply that cannot be read, or a failed system
/// call (with errno).
public enum StatusSocketError: Error, Equatable, CustomStringConvertible {
    case badPath(String)
    case alreadyRunning(String)
    case notASocket(String)
    case notRunning(String, String)
    case badReply(String)
    case system(String, Int32)

    public var description: String {
        switch self {
        case .badPath(let p): "\(p) is not a usable Unix socket path"
        case .alreadyRunning(let p): "another bikepathd already answers on \(p)"
        case .notASocket(let p): "\(p) exists and is not a socket; refusing to replace it (check status.socket / --status-socket)"
        case .notRunning(let p, let why): "no bikepathd answers on \(p) (\(why)); is the service running?"
        case .badReply(let text): "unexpected reply from the daemon: \(text)"
        case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
        }
    }
}

/// UTC now, ISO 8601 with milliseconds.
public func isoNow() -> String {
    JournalLogHandler.timestamp(Date())
}
