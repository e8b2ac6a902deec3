import BikePathAPI
import BikePathHub
import BikePathTestSupport
import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// A log handler that keeps every event, for tests to read.
final class CapturedLog: Sendable {
    struct Event: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }
    private let events = Mutex<[Event]>([])
    var all: [Event] { events.withLock { $0 } }

    struct Handler: LogHandler {
        let sink: CapturedLog
        var logLevel = Logger.Level.info
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { $1 }.mapValues { "\($0)" }
            sink.events.withLock { $0.append(Event(level: event.level, message: event.message.description, metadata: merged)) }
        }
    }

    var logger: Logger { Logger(label: "hub-log-test") { _ in Handler(sink: self) } }
}

/// One structured log event per request (docs/hub.md, "Logs"), captured in process.
@Suite(.serialized, .ownThreads) struct RequestLogTests {
    static let token = HubContractTests.tokens["bike-1"]!

    static func withHub(_ test: @escaping @Sendable (any TestClientProtocol, CapturedLog) async throws -> Void) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let log = CapturedLog()
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.issueToken(device: "bike-1", token: token)
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: log.logger)
            try await app.test(.live) { client in try await test(client, log) }
        }
    }

    /// The request's event, found by the id the response carries.
    static func event(_ log: CapturedLog, _ response: TestResponse) throws -> [String: String] {
        let id = try #require(response.headers[HTTPField.Name("X-Request-Id")!])
        let events = log.all.filter { $0.message == "request" && $0.metadata["request_id"] == id }
        try #require(events.count == 1, "\(log.all)")
        return events[0].metadata
    }

    @Test func anAcceptedUploadIsLoggedWithItsDeviceAndRecords() async throws {
        try await Self.withHub { client, log in
            let trips = ["T-1", "T-2"].map { BatchRequest.Item(id: $0, body: .trip(Fixtures.trip($0))) }
            _ = try await HubContractTests.put(client, "/v1/trips/T-1", Fixtures.trip("T-1"))
            let body = try WireJSON.encode(BatchRequest(records: trips))
            let response = try await client.execute(
                uri: "/v1/batch?note=secret", method: .post,
                headers: [.authorization: "Bearer \(Self.token)", .contentType: "application/json"], body: ByteBuffer(bytes: body))
            #expect(response.status == .ok)
            let e = try Self.event(log, response)
            #expect(e["method"] == "POST" && e["route"] == "/v1/batch" && e["status"] == "200")
            #expect(e["device"] == "bike-1" && e["bytes_in"] == "\(body.count)")
            #expect(e["records_created"] == "1" && e["records_duplicate"] == "1" && e["records_refused"] == "0")
            #expect(Double(try #require(e["duration_ms"])) ?? -1 >= 0)
            // The single PUT before it: its route is the pattern, not the id.
            #expect(
                log.all.contains {
                    $0.metadata["route"] == "/v1/trips/{id}" && $0.metadata["status"] == "201" && $0.metadata["records_created"] == "1"
                })
            #expect(!log.all.contains { event in event.metadata.values.contains { $0.contains(Self.token) || $0.contains("secret") } })
        }
    }

    @Test func aRefusedTokenIsLoggedWithoutADevice() async throws {
        try await Self.withHub { client, log in
            let response = try await client.execute(
                uri: "/v1/trips/T-1", method: .put, headers: [.authorization: "Bearer not-a-known-token-0123"],
                body: ByteBuffer(bytes: try WireJSON.encode(Fixtures.trip("T-1"))))
            #expect(response.status == .unauthorized)
            let e = try Self.event(log, response)
            #expect(e["status"] == "401" && e["route"] == "/v1/trips/{id}" && e["method"] == "PUT")
            #expect(e["device"] == nil && e["records_created"] == nil)
            #expect(!log.all.contains { event in event.metadata.values.contains { $0.contains("not-a-known-token") } })
        }
    }

    @Test func aBodyTooLargeIsLoggedWithItsSize() async throws {
        try await Self.withHub { client, log in
            // 33 MiB of zeros: ~33 KB of gzip on the wire, past the 32 MiB inflated limit.
            var zeros = ByteBuffer(bytes: Data(count: 33 * 1024 * 1024))
            let wire = try zeros.compress(with: .gzip)
            let response = try await client.execute(
                uri: "/v1/trips/T-1", method: .put,
                headers: [.authorization: "Bearer \(Self.token)", .contentEncoding: "gzip", .contentType: "application/json"],
                body: wire)
            #expect(response.status == .contentTooLarge)
            let e = try Self.event(log, response)
            #expect(e["status"] == "413" && e["device"] == "bike-1" && e["bytes_in"] == "\(wire.readableBytes)")
        }
    }

    @Test func jsonLinesCarryEveryFieldAndNeverHideTheFixedOnes() throws {
        let line = JSONLinesLogHandler.line(
            level: .info, label: "bikepath-hub", message: "request",
            metadata: ["route": "/v1/batch", "status": "200", "msg": "spoof"], now: Date(timeIntervalSince1970: 0))
        #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A })
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: String])
        #expect(
            object == [
                "ts": "1970-01-01T00:00:00.000Z", "level": "info", "logger": "bikepath-hub", "msg": "request",
                "route": "/v1/batch", "status": "200", "meta.msg": "spoof",
            ])
    }

    @Test func jsonLinesEscapeWhatJSONMustAndStampUTCMilliseconds() throws {
        let tricky = "a \"quote\", a back\\slash, a new\nline, a tab\t, a bell \u{07}, é and 🚲"
        let line = JSONLinesLogHandler.line(
            level: .warning, label: "bikepath-hub", message: tricky, metadata: ["path": "/v1/a\u{1F}b"],
            now: Date(timeIntervalSince1970: 1_795_789_805.125))
        #expect(line.last == 0x0A && line.dropLast().allSatisfy { $0 != 0x0A })
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: String])
        #expect(object["msg"] == tricky && object["path"] == "/v1/a\u{1F}b" && object["level"] == "warning")
        #expect(object["ts"] == "2026-11-27T14:30:05.125Z")
        #expect(String(decoding: line, as: UTF8.self).hasPrefix(#"{"level":"warning","logger":"bikepath-hub","msg":"#))
        let before1970 = JSONLinesLogHandler.line(
            level: .info, label: "l", message: "m", metadata: [:], now: Date(timeIntervalSince1970: -0.5))
        #expect(String(decoding: before1970, as: UTF8.self).contains(#""ts":"1969-12-31T23:59:59.500Z""#))
    }
}
