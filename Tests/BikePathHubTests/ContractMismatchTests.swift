import BikePathAPI
import BikePathHub
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// What the contract test (scripts/contract-test) holds the hub to, case by case: each is
/// answered as docs/api.yaml says, where a hub could accept it or answer otherwise.
@Suite(.serialized, .ownThreads) struct ContractMismatchTests {
    static func send(
        _ client: any TestClientProtocol, _ uri: String, _ text: String, method: HTTPRequest.Method = .put,
        contentType: String? = "application/json"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(HubContractTests.tokens["bike-1"]!)"]
        if let contentType { headers[.contentType] = contentType }
        return try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: text))
    }

    static func text<T: Encodable>(_ value: T) throws -> String { String(decoding: try WireJSON.encode(value), as: UTF8.self) }

    /// `"field": null` where the field is optional: no field in the schema is nullable.
    @Test func nullIsRefusedWhereAnOptionalFieldWouldBeLeftOut() async throws {
        try await HubContractTests.withHub(.sqlite) { client, store in
            let sos = #"{"id":"S-1","time_ns":9,"impact_time_ns":5,"impact_peak_mps2":40,"position":null}"#
            let refused = try await Self.send(client, "/v1/sos/S-1", sos)
            #expect(refused.status == .badRequest)
            #expect(HubContractTests.result(refused)?.error?.contains("null at position") == true, "\(String(buffer: refused.body))")
            #expect(
                try await Self.send(client, "/v1/sos/S-1", sos.replacingOccurrences(of: #","position":null"#, with: "")).status == .created)

            let trip = try Self.text(Fixtures.trip("T-1")).replacingOccurrences(of: #""end_utc_ns":"#, with: #""end_utc_ns":null,"x":"#)
            #expect(try await Self.send(client, "/v1/trips/T-1", trip).status == .badRequest)

            var draft = Fixtures.confirmation(id: "D-1").draft
            for i in draft.roadQuality.indices { draft.roadQuality[i].end = nil }
            let withNull = try Self.text(draft).replacingOccurrences(
                of: #""length_m":100,"roughness""#, with: #""end":null,"length_m":100,"roughness""#)
            #expect(withNull.contains(#""end":null"#))
            #expect(try await Self.send(client, "/v1/drafts/D-1", withNull).status == .badRequest)
            #expect(try await Self.send(client, "/v1/drafts/D-1", try Self.text(draft)).status == .created)

            let live = try await Self.send(client, "/v1/position", #"{"position":{"lat":52.5,"lon":13.4},"speed_mps":null}"#)
            #expect(live.status == .badRequest)
            #expect(try await Self.send(client, "/v1/position", #"{"position":{"lat":52.5,"lon":13.4}}"#).status == .noContent)

            let batch =
                #"{"records":[{"kind":"sos","id":"S-2","body":{"id":"S-2","time_ns":9,"impact_time_ns":5,"impact_peak_mps2":40,"utc_ns":null}}]}"#
            let answer = try await Self.send(client, "/v1/batch", batch, method: .post)
            #expect(answer.status == .badRequest && HubContractTests.error(answer) == "invalid-batch")
            #expect(try await store.confirmations().isEmpty)
        }
    }

    /// `bbox` is exactly four plain decimals, `cell` a number: what api.yaml's pattern and type say.
    @Test func mapQueriesAreReadAsTheSchemaSpellsThem() async throws {
        try await HubContractTests.withHub(.sqlite) { client, _ in
            func status(_ query: String, _ route: String = "obstacles") async throws -> HTTPResponse.Status {
                try await client.execute(uri: "/v1/map/\(route)?\(query)", method: .get).status
            }
            #expect(try await status("bbox=13.39,52.51,13.42,52.53") == .ok)
            for bad in [
                "bbox=", "bbox=13.39,,52.51,13.42,52.53", "bbox=13.39,x,52.51,13.42,52.53", "bbox=0x1p3,52.51,13.42,52.53",
                "bbox=13.39,52.51,13.42,52.53,", "bbox=nan,52.51,13.42,52.53", "bbox=+13.39,52.51,13.42,52.53",
            ] {
                let answer = try await client.execute(uri: "/v1/map/obstacles?\(bad)", method: .get)
                #expect(answer.status == .badRequest, "\(bad)")
                #expect(HubContractTests.error(answer) == "bad-bbox", "\(bad)")
            }
            #expect(try await status("bbox=13.39,52.51,13.42,52.53&cell=100", "heatmap") == .ok)
            #expect(try await status("bbox=13.39,52.51,13.42,52.53&cell=1e2", "heatmap") == .ok)
            for bad in ["abc", "", "0x64", "nan", "49"] {
                let answer = try await client.execute(uri: "/v1/map/heatmap?bbox=13.39,52.51,13.42,52.53&cell=\(bad)", method: .get)
                #expect(answer.status == .badRequest && HubContractTests.error(answer) == "bad-cell", "cell=\(bad)")
            }
        }
    }

    /// A path the hub serves, asked with another method: 405 with `Allow`, not 404.
    @Test func anUnservedMethodIs405WithAllow() async throws {
        try await HubContractTests.withHub(.sqlite) { client, _ in
            for (uri, method, allow) in [
                ("/v1/trips/T-1", HTTPRequest.Method.trace, "PUT"), ("/v1/health", .delete, "GET"),
                ("/v1/drafts/D-1/confirmation", .get, "PUT"), ("/v1/batch", .put, "POST"),
                ("/v1/map/heatmap", .post, "GET"),
            ] {
                let answer = try await client.execute(uri: uri, method: method)
                #expect(answer.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(answer.headers[.allow] == allow, "\(method) \(uri)")
                #expect(HubContractTests.error(answer) == "method-not-allowed", "\(method) \(uri)")
            }
            #expect(try await client.execute(uri: "/v1/nowhere", method: .trace).status == .notFound)
            #expect(try await client.execute(uri: "/v1/trips/T-1/extra", method: .put).status == .notFound)
        }
    }

    /// Uploads say `Content-Type: application/json` or are answered 415 before their body is read.
    @Test func uploadsMustBeDeclaredJSON() async throws {
        try await HubContractTests.withHub(.sqlite) { client, store in
            let trip = try Self.text(Fixtures.trip("T-1"))
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", nil] {
                let answer = try await Self.send(client, "/v1/trips/T-1", trip, contentType: contentType)
                #expect(answer.status == .unsupportedMediaType, "\(contentType ?? "none")")
                #expect(HubContractTests.error(answer) == "unsupported-media-type", "\(contentType ?? "none")")
                #expect(answer.headers[.contentType] == "application/json")
            }
            let batch = try Self.text(BatchRequest(records: [.init(id: "T-2", body: .trip(Fixtures.trip("T-2")))]))
            #expect(
                try await Self.send(client, "/v1/batch", batch, method: .post, contentType: "text/plain").status == .unsupportedMediaType)
            #expect(
                try await Self.send(client, "/v1/position", #"{"position":{"lat":1,"lon":2}}"#, contentType: nil).status
                    == .unsupportedMediaType)
            #expect(try await store.trips(device: "bike-1").isEmpty)

            #expect(try await Self.send(client, "/v1/trips/T-1", trip, contentType: "application/json; charset=utf-8").status == .created)
            #expect(try await Self.send(client, "/v1/trips/T-1", trip, contentType: "Application/JSON").status == .ok)
        }
    }

    /// The rate limit counts records: a batch of n costs n (it used to cost 1, so 1,000-record
    /// batches let one device past 10,000 records a second).
    @Test func theRateLimitCountsRecordsNotRequests() async throws {
        try await HubContractTests.withHub(.sqlite, limits: HubLimits(deviceRecordsPerSecond: 1, deviceBurst: 100)) { client, _ in
            func batch(_ prefix: String, _ n: Int) throws -> String {
                try Self.text(
                    BatchRequest(records: (0..<n).map { .init(id: "\(prefix)\($0)", body: .trip(Fixtures.trip("\(prefix)\($0)"))) }))
            }
            // 100 at once: 60, then 60 more (admitted with 40 left, the device is now 20 in debt).
            #expect(try await Self.send(client, "/v1/batch", try batch("A", 60), method: .post).status == .ok)
            #expect(try await Self.send(client, "/v1/batch", try batch("B", 60), method: .post).status == .ok)
            let limited = try await Self.send(client, "/v1/trips/T-1", try Self.text(Fixtures.trip("T-1")))
            #expect(limited.status == .tooManyRequests)
            #expect(HubContractTests.error(limited) == "rate-limited")
            // 1 record a second pays back 20 of debt and one more to be allowed: 21 s, give or take the test's own time.
            let retry = try #require(Int(limited.headers[.retryAfter] ?? ""))
            #expect((20...22).contains(retry), "Retry-After \(retry)")
            let message = try #require(try? JSONDecoder().decode(ErrorBody.self, from: Data(limited.body.readableBytesView))).message
            #expect(message.contains("1 records a second") && message.contains("a batch of n records counts n"), "\(message)")
            // Another device has its own bucket, and a single record is admitted whole.
            let other = try await client.execute(
                uri: "/v1/trips/T-1", method: .put,
                headers: [.authorization: "Bearer \(HubContractTests.tokens["bike-2"]!)", .contentType: "application/json"],
                body: ByteBuffer(string: try Self.text(Fixtures.trip("T-1"))))
            #expect(other.status == .created)
        }
    }

    /// A request refused before its records are counted still costs 1: garbage is not free.
    @Test func refusedBodiesStillCountAgainstTheRateLimit() async throws {
        try await HubContractTests.withHub(.sqlite, limits: HubLimits(deviceRecordsPerSecond: 1, deviceBurst: 2)) { client, _ in
            let trip = try Self.text(Fixtures.trip("T-1"))
            let malformed = try await Self.send(client, "/v1/trips/T-1", "not json")
            #expect(malformed.status == .badRequest)
            let empty = try await Self.send(client, "/v1/batch", #"{"records":[]}"#, method: .post)
            #expect(empty.status == .ok)
            let limited = try await Self.send(client, "/v1/trips/T-1", trip)
            #expect(limited.status == .tooManyRequests)
        }
    }
}
