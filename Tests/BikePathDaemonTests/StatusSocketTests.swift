import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathDaemon

let sampleStatus = DaemonStatus(
    version: "0.1.0", pid: 42, uptimeS: 3725, degraded: ["gpsd unreachable"],
    trip: .init(state: "riding", id: "t-7", distanceM: 12_345, durationS: 1800),
    gnss: .init(connected: false, lastFixLat: 52.520008, lastFixLon: 13.404954, lastFixAgeS: 12.5, mode: "3D"),
    imu: .init(connected: true, rateHz: 99.8),
    store: .init(path: "/var/lib/bikepath/bikepath.sqlite", queueLength: 3, freeBytes: 5 * 1_073_741_824),
    sync: .init(enabled: true, lastAttemptAt: "2026-11-21T13:00:00.000Z", lastResult: "HTTP 503", succeeded: false))

/// A status server in a fresh temp dir, stopped and removed by `finish()`.
struct ServerFixture {
    let directory: String
    let path: String
    let server: StatusServer

    init(status: DaemonStatus = sampleStatus) throws {
        directory = try TempDir().path
        path = directory + "/status.sock"
        server = try StatusServer(path: path) { status }
    }

    func finish() {
        server.stopAndWait()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

@Suite("Status socket", .ownThreads)
struct StatusSocketTests {
    @Test("status: one request, one JSON status, equal to what the daemon filled in")
    func statusRoundTrip() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        #expect(try StatusClient.fetchStatus(path: f.path) == sampleStatus)
        #expect(try StatusClient.fetchStatus(path: f.path) == sampleStatus)  // and again: the server goes on
    }

    @Test("The socket file has mode 0660 and is removed on stop")
    func permissionsAndCleanup() throws {
        let f = try ServerFixture()
        var st = stat()
        #expect(stat(f.path, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o660)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        f.server.stopAndWait()
        #expect(!FileManager.default.fileExists(atPath: f.path))
        #expect(throws: StatusSocketError.self) { try StatusClient.fetchStatus(path: f.path) }
        try? FileManager.default.removeItem(atPath: f.directory)
    }

    @Test("A stale socket file is replaced; a live daemon on the path is not")
    func staleAndLive() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/status.sock"
        // A crash leaves a bound socket file nobody listens on.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let made = try #require(UnixAddress.make(path))
        var address = made.0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, made.1) } }
        #expect(bound == 0)
        close(fd)
        let server = try StatusServer(path: path) { sampleStatus }
        defer { server.stopAndWait() }
        #expect(try StatusClient.fetchStatus(path: path).pid == 42)
        #expect(throws: StatusSocketError.alreadyRunning(path)) { try StatusServer(path: path) { sampleStatus } }
    }

    @Test("An unknown request gets an error line, not silence")
    func unknownRequest() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let made = try #require(UnixAddress.make(f.path))
        var address = made.0
        let rc = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, made.1) } }
        #expect(rc == 0)
        _ = "hello\n".withCString { send(fd, $0, 6, 0) }
        var reader = LineReader(fd: fd)
        #expect(try reader.next() == #"{"error":"unknown request \"hello\"; expected status, tail, sync or mark [KIND]"}"#)
        #expect(try reader.next() == nil)
    }

    /// Sends `bytes` as one client (as much as the server takes before it closes) and
    /// returns the lines it answers until the connection ends (end of stream or a reset).
    static func exchange(_ path: String, _ bytes: [UInt8]) throws -> [String] {
        let fd = try StatusClient.connect(path, timeoutSeconds: 5)
        defer { close(fd) }
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL)) }
        var reader = LineReader(fd: fd)
        var lines: [String] = []
        while let line = try? reader.next() { lines.append(line) }
        return lines
    }

    @Test("status\\r\\n is a status request, as line protocols (SMTP, HTTP, gpsd) end lines")
    func crlf() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let lines = try Self.exchange(f.path, Array("status\r\n".utf8))
        #expect(lines.count == 1)
        #expect((try? StatusJSON.decode(DaemonStatus.self, from: lines.first ?? "")) == sampleStatus, "\(lines)")
        // The longest line, 4096 bytes ("status" and 4090 spaces, trimmed), with its \r\n not counted.
        let longest = try Self.exchange(f.path, Array("status".utf8) + Array(repeating: UInt8(ascii: " "), count: 4090) + [13, 10])
        #expect((try? StatusJSON.decode(DaemonStatus.self, from: longest.first ?? "")) == sampleStatus, "\(longest)")
        let mark = try Self.exchange(f.path, Array("mark bump\r\n".utf8))
        #expect(mark == [MarkReply.failure("this daemon takes no marks").jsonLine()])  // parsed as a mark, not an unknown request
    }

    @Test("A request line over 4 KiB gets one JSON error line and the connection closes; 4 KiB is answered")
    func longLine() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let refusal = #"{"error":"request line longer than 4096 bytes; expected status, tail, sync or mark [KIND]"}"#
        // 4096 bytes: "status" and 4090 spaces (trimmed) is still a status request.
        let longest = Array("status".utf8) + Array(repeating: UInt8(ascii: " "), count: 4090)
        let lines = try Self.exchange(f.path, longest + [10])
        #expect((try? StatusJSON.decode(DaemonStatus.self, from: lines.first ?? "")) == sampleStatus, "\(lines)")
        // One byte more, ended: refused, though it trims to "status".
        #expect(try Self.exchange(f.path, longest + Array(" \n".utf8)) == [refusal])
        // 100 KB with no newline at all: refused as soon as 4 KiB is passed, not silence.
        #expect(try Self.exchange(f.path, Array(repeating: UInt8(ascii: "x"), count: 100_000)) == [refusal])
        #expect(try StatusClient.fetchStatus(path: f.path) == sampleStatus)  // the server goes on
    }

    @Test("A client that never sends a request is disconnected after the timeout")
    func idleClientDropped() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/status.sock"
        let server = try StatusServer(path: path, requestTimeoutSeconds: 0.2) { sampleStatus }
        defer { server.stopAndWait() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let made = try #require(UnixAddress.make(path))
        var address = made.0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, made.1) } }
        // Blocks until the server closes the connection (end of stream), with nothing sent.
        var reader = LineReader(fd: fd)
        #expect(try reader.next() == nil)
        #expect(try StatusClient.fetchStatus(path: path) == sampleStatus)  // others are still served
    }

    @Test("tail: events published after subscribing arrive in order, as JSON lines")
    func tail() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let received = EventBox()
        let client = Thread {
            try? StatusClient.tail(path: f.path) { event in
                received.append(event)
                return received.count < 3
            }
            received.finish()
        }
        client.start()
        try #require(pollUntil { f.server.tailClientCount >= 1 }, "the tail client subscribed")
        let events = (1...3).map {
            DaemonEvent(time: "2026-11-21T13:00:0\($0).000Z", kind: "obstacle", message: "pothole \($0)", fields: ["peak": "\($0).5"])
        }
        for e in events { f.server.publish(e) }
        #expect(received.waitFinished(), "the tail client got its 3 events within 10 s")
        #expect(received.events == events)
    }

    @Test("A tail client that does not read loses events, is told how many, and the daemon never blocks")
    func slowClient() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let made = try #require(UnixAddress.make(f.path))
        var address = made.0
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, made.1) } }
        _ = "tail\n".withCString { send(fd, $0, 5, 0) }
        try #require(pollUntil { f.server.tailClientCount >= 1 }, "the tail client subscribed")
        let total = 5000
        let padding = String(repeating: "x", count: 200)
        for i in 0..<total { f.server.publish(DaemonEvent(time: "t", kind: "e", message: "\(i) \(padding)")) }
        // Now read; a helper keeps publishing "last" until the reader has seen one.
        let seenLast = EventBox()
        let publisher = Thread {
            for _ in 0..<2000 where !seenLast.isFinished {
                f.server.publish(DaemonEvent(time: "t", kind: "last", message: ""))
                usleep(5_000)
            }
        }
        publisher.start()
        var reader = LineReader(fd: fd)
        var delivered = 0
        var dropped = 0
        while let line = try reader.next() {
            let event = try StatusJSON.decode(DaemonEvent.self, from: line)
            if event.kind == "e" { delivered += 1 }
            if event.kind == "dropped" { dropped += Int(event.fields["count"] ?? "0") ?? 0 }
            if event.kind == "last" { break }
        }
        seenLast.finish()
        #expect(delivered > 0)
        #expect(delivered < total)
        #expect(dropped > 0)
        #expect(delivered + dropped >= total)
    }

    @Test("The human-readable status names every part")
    func humanReadable() {
        let text = sampleStatus.humanReadable()
        #expect(text.contains("health  degraded: gpsd unreachable"))
        #expect(text.contains("trip    riding (trip t-7), 12.35 km, 30 min 0 s"))
        #expect(text.contains("gnss    gpsd not connected; last fix 52.520008, 13.404954 (3D), 12 s ago"))
        #expect(text.contains("imu     connected, 99.8 Hz"))
        #expect(text.contains("3 waiting to send, 5.0 GiB free"))
        #expect(text.contains("sync    on; last attempt 2026-11-21T13:00:00.000Z: failed (HTTP 503)"))
        #expect(text.contains("up 1 h 2 min"))
    }

    @Test("Free space is read from the file system holding a path; a missing path is unknown, not zero")
    func freeSpace() throws {
        let free = try #require(freeBytes(at: "/tmp"))
        var st = statvfs()
        #expect(statvfs("/tmp", &st) == 0)
        // Other suites write to /tmp between the two reads (CI saw 4 KiB move), so
        // compare within 64 MiB: still far from a wrong unit (blocks, KiB) or zero.
        let expected = Int64(st.f_bavail) * Int64(st.f_frsize)
        #expect(abs(free - expected) < 64 << 20)
        #expect(freeBytes(at: "/nonexistent/bikepath") == nil)
    }

    @Test("An event made now carries a UTC ISO 8601 time")
    func eventTime() {
        let e = DaemonEvent(kind: "sync", message: "ok")
        #expect(e.time.count == 24)
        #expect(e.time.hasSuffix("Z"))
        #expect(e.time.hasPrefix("20"))
    }

    @Test("The JSON uses snake_case keys")
    func jsonKeys() {
        let json = sampleStatus.jsonLine()
        #expect(json.contains("\"last_fix_age_s\":12.5"))
        #expect(json.contains("\"queue_length\":3"))
        #expect(!json.contains("\n"))
    }
}

final class EventBox: @unchecked Sendable {
    private let condition = NSCondition()
    private var stored: [DaemonEvent] = []
    private var done = false
    func append(_ e: DaemonEvent) { condition.lock(); stored.append(e); condition.unlock() }
    var count: Int { condition.lock(); defer { condition.unlock() }; return stored.count }
    var events: [DaemonEvent] { condition.lock(); defer { condition.unlock() }; return stored }
    var isFinished: Bool { condition.lock(); defer { condition.unlock() }; return done }
    func finish() { condition.lock(); done = true; condition.broadcast(); condition.unlock() }
    /// True once the client finished; false after 10 s without.
    func waitFinished() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date() + 10
        while !done { if !condition.wait(until: deadline) { return done } }
        return true
    }
}
