import BikePathAPI
import BikePathDeviceTestSupport
import BikePathStore
import BikePathSync
import BikePathTestSupport
import Foundation
import Synchronization
import Testing

/// What the sync client takes as the hub's word, against a scripted server on loopback that
/// answers as a broken hub, a proxy or an attacker would: its deadline holds for the whole
/// answer, and an answer that contradicts itself or the contract quarantines nothing.
@Suite(.serialized, .ownThreads) struct HubWordTests {
    /// A 223-byte body trickled a byte every 200 ms: the 1 s deadline ends the exchange
    /// (AsyncHTTPClient's own deadline ended at the head; the read timeout restarts per byte).
    @Test(.timeLimitOnceRunning(.minutes(1))) func theDeadlineCoversTheWholeAnswer() async throws {
        let body = String(repeating: "x", count: 223)
        let server = try ScriptedServer { _ in
            .init(
                head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 223\r\n\r\n", body: Data(body.utf8),
                byteDelay: 0.2)
        }
        defer { server.stop() }
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        try await withClient(device, timeout: 1, url: server.url) { client in
            let t0 = ContinuousClock.now
            await #expect(throws: HubClient.DeadlinePassed.self) { try await client.postBatch([]) }
            let took = ContinuousClock.now - t0
            #expect(took < .seconds(3), "the exchange took \(took)")
        }
    }

    /// Every record answered 409 with outcome `created`: not the hub's word, nothing quarantined.
    @Test(.timeLimitOnceRunning(.minutes(1))) func anAnswerThatContradictsItselfQuarantinesNothing() async throws {
        // Any result that contradicts itself discredits the whole answer, whichever record it names.
        let server = try ScriptedServer { _ in
            .json(200, try! WireJSON.encode(BatchResponse(results: [RecordResult(kind: .trip, id: "T1", status: 409, outcome: .created)])))
        }
        defer { server.stop() }
        try await Self.expectNothingQuarantined(url: server.url, reason: "409 with outcome created")
    }

    /// `invalid-json` and `too-large` for bodies this client built whole, within the documented
    /// limit: mangled on the way or not the hub; nothing quarantined (a whole batch was).
    @Test(arguments: ["invalid-json", "too-large", "bad-gzip"]) func aTransitRefusalQuarantinesNothing(code: String) async throws {
        let server = try ScriptedServer { _ in
            .json(code == "too-large" ? 413 : 400, try! WireJSON.encode(ErrorBody(error: code, message: "scripted")))
        }
        defer { server.stop() }
        try await Self.expectNothingQuarantined(url: server.url, reason: code)
    }

    static func expectNothingQuarantined(url: String, reason: String) async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        let pendingBefore = try device.store.syncDiagnosis().pending.values.reduce(0, +)
        #expect(pendingBefore > 0)
        try await withClient(device, url: url) { client in
            let result = try await device.engine(client).syncOnce()
            guard case .failed(let failure, _) = result else {
                Issue.record("\(reason): the pass must fail, got \(result)")
                return
            }
            #expect("\(failure)".contains("nothing was quarantined"), "\(failure)")
        }
        let after = try device.store.syncDiagnosis()
        #expect(after.quarantined.isEmpty, "\(reason): \(after.quarantined)")
        #expect(after.pending.values.reduce(0, +) >= pendingBefore, "nothing left the queue")
    }
}

/// A loopback HTTP/1.1 server that answers every request as `answer` scripts it, one
/// connection at a time, on its own thread; a body may be trickled byte by byte.
final class ScriptedServer: @unchecked Sendable {
    /// A request as received: its head and its body (gzip'ed as sent).
    struct Request {
        var head: String
        var body: Data
    }
    struct Answer {
        var head: String
        var body: Data
        var byteDelay: Double = 0

        static func json(_ status: Int, _ body: Data) -> Answer {
            Answer(
                head:
                    "HTTP/1.1 \(status) Scripted\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n",
                body: body)
        }
    }

    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }
    private let listener: Int32
    private let thread: Thread
    private final class Count: Sendable { let value = Mutex(0) }
    private let accepted = Count()
    /// Connections accepted so far.
    var connections: Int { accepted.value.withLock { $0 } }

    init(_ answer: @escaping @Sendable (Request) -> Answer) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw TestFailure(description: "scripted server: bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let accepted = accepted
        thread = Thread {
            while true {
                let connection = accept(listener, nil, nil)
                if connection < 0 {  // shut down by stop()
                    close(listener)
                    return
                }
                accepted.value.withLock { $0 += 1 }
                Self.serve(connection, answer)
                close(connection)
            }
        }
        thread.start()
    }

    /// Ends the accept loop; the loop's thread closes the socket itself. Closed here, its
    /// number could go to another test's listener while this thread, still answering a
    /// connection, comes back to accept on it: it then answered that test's client with its
    /// own script (an 8 MiB answer where a 400 was scripted, rehearsal r59).
    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private static func serve(_ connection: Int32, _ answer: (Request) -> Answer) {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            guard let end = received.range(of: Data("\r\n\r\n".utf8)) else {
                let n = read(connection, &buffer, buffer.count)
                if n <= 0 { return }
                received.append(contentsOf: buffer[0..<n])
                continue
            }
            let head = String(decoding: received[..<end.lowerBound], as: UTF8.self)
            let length =
                head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
            while received.count - end.upperBound < length {
                let n = read(connection, &buffer, buffer.count)
                if n <= 0 { return }
                received.append(contentsOf: buffer[0..<n])
            }
            let body = Data(received[end.upperBound..<(end.upperBound + length)])
            let reply = answer(Request(head: head, body: body))
            guard write(connection, reply.head, reply.head.utf8.count) > 0 else { return }
            if reply.byteDelay == 0 {
                let sent = reply.body.withUnsafeBytes { whole in
                    var at = 0
                    while at < whole.count {
                        let n = write(connection, whole.baseAddress! + at, whole.count - at)
                        if n <= 0 { return false }
                        at += n
                    }
                    return true
                }
                guard sent else { return }
            }
            for byte in reply.body where reply.byteDelay > 0 {
                usleep(useconds_t(reply.byteDelay * 1_000_000))
                guard withUnsafeBytes(of: byte, { write(connection, $0.baseAddress, 1) }) == 1 else { return }
            }
            received = Data(received[(end.upperBound + length)...])
            if reply.head.contains("Connection: close") { return }
        }
    }
}
