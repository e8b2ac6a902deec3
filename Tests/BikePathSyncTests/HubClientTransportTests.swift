import BikePathAPI
import BikePathTestSupport
import Foundation
import Synchronization
import Testing

@testable import BikePathSync

/// The client's HTTP through the system's libcurl (`CurlSession`), against the scripted
/// loopback server: what goes on the wire and is counted, one connection kept for many
/// requests, an answer past the limit, and a task cancelled mid-answer.
@Suite(.serialized, .ownThreads) struct HubClientTransportTests {
    static let results = try! WireJSON.encode(BatchResponse(results: []))

    static func client(_ url: String, timeout: Double = 5) throws -> HubClient {
        try HubClient(
            endpoint: HubEndpoint(baseURL: url, token: DeviceToken(value: "transport-test-token"), requestTimeoutSeconds: timeout))
    }

    /// The counters are the bytes the server read and wrote, heads included; the request is a
    /// gzip'ed POST with the token in its header and no `Expect:` (no wait for a 100-continue).
    @Test(.timeLimitOnceRunning(.minutes(1))) func theWireCountsAreTheBytesExchanged() async throws {
        let heads = Mutex<[String]>([])
        let bodies = Mutex<[Int]>([])
        let answer = ScriptedServer.Answer.json(200, Self.results)
        let server = try ScriptedServer { request in
            heads.withLock { $0.append(request.head) }
            bodies.withLock { $0.append(request.body.count) }
            return answer
        }
        defer { server.stop() }
        let client = try Self.client(server.url)
        let got = try await client.postBatch([])
        await client.shutdown()
        #expect(got.status == 200)
        #expect(got.body == Self.results)
        let head = try #require(heads.withLock { $0.first })
        let lines = head.split(separator: "\r\n").map(String.init)
        #expect(lines.first == "POST /v1/batch HTTP/1.1")
        #expect(lines.contains("Authorization: Bearer transport-test-token"))
        #expect(lines.contains("Content-Encoding: gzip"))
        #expect(!lines.contains { $0.lowercased().hasPrefix("expect:") }, "\(lines)")
        let wire = client.wire
        #expect(wire.requests == 1)
        #expect(wire.requestHeaderBytes == head.utf8.count + 4, "the head and its blank line")
        #expect(wire.requestBodyBytes == bodies.withLock { $0.first })
        #expect(wire.responseHeaderBytes == answer.head.utf8.count)
        #expect(wire.responseBodyBytes == Self.results.count)
    }

    /// Keep-alive: three requests over one connection (one TCP and TLS handshake per pass of
    /// many batches, not one per batch).
    @Test(.timeLimitOnceRunning(.minutes(1))) func oneConnectionCarriesManyRequests() async throws {
        let server = try ScriptedServer { _ in
            let body = Self.results
            return .init(
                head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n", body: body)
        }
        defer { server.stop() }
        let client = try Self.client(server.url)
        for _ in 0..<3 { #expect(try await client.postBatch([]).status == 200) }
        await client.shutdown()
        #expect(server.connections == 1)
    }

    /// An answer longer than 8 MiB is not read further and is refused with its own error.
    @Test(.timeLimitOnceRunning(.minutes(1))) func anAnswerPastTheLimitIsRefused() async throws {
        let server = try ScriptedServer { _ in .json(200, Data(repeating: UInt8(ascii: "x"), count: HubClient.maxAnswerBytes + 1)) }
        defer { server.stop() }
        let client = try Self.client(server.url)
        await #expect(throws: HubTransportError.answerTooLarge(limit: HubClient.maxAnswerBytes)) { try await client.postBatch([]) }
        await client.shutdown()
    }

    /// A task cancelled while the answer trickles in ends well before its 30 s deadline.
    @Test(.timeLimitOnceRunning(.minutes(1))) func cancellingTheTaskEndsTheExchange() async throws {
        let server = try ScriptedServer { _ in
            .init(
                head: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 223\r\n\r\n",
                body: Data(repeating: UInt8(ascii: "x"), count: 223), byteDelay: 0.2)
        }
        defer { server.stop() }
        let client = try Self.client(server.url, timeout: 30)
        let t0 = ContinuousClock.now
        let exchange = Task { try await client.postBatch([]) }
        try await Task.sleep(for: .milliseconds(500))
        exchange.cancel()
        await #expect(throws: CancellationError.self) { try await exchange.value }
        #expect(ContinuousClock.now - t0 < .seconds(5), "libcurl's progress call runs about once a second")
        await client.shutdown()
    }

    /// Nothing listens: libcurl's own words, and its error code, say why.
    @Test(.timeLimitOnceRunning(.minutes(1))) func aRefusedConnectionSaysSo() async throws {
        let port = freeLoopbackPort()
        let client = try Self.client("http://127.0.0.1:\(port)")
        let error = await #expect(throws: HubTransportError.self) { try await client.postBatch([]) }
        #expect(error.map { "\($0)" }?.contains("curl error 7") == true, "\(String(describing: error))")
        await client.shutdown()
    }
}
