import AsyncHTTPClient
import BikePathAPI
import BikePathCore
import BikePathStore
import BikePathSync
import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The hub answers as docs/api.yaml says, checked with raw HTTP (not through the sync client).
@Suite(.serialized) struct HubContractTests {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var error: String? { (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error }
        var result: RecordResult? { try? JSONDecoder().decode(RecordResult.self, from: body) }
    }

    static func send(_ http: HTTPClient, _ url: String, method: HTTPMethod = .PUT, token: String? = Device.token,
                     body: Data, gzip: Bool = true, encoding: String? = nil, authorization: String? = nil,
                     timeout: Int64 = 10) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        var buffer = ByteBuffer(bytes: body)
        if gzip {
            buffer = try buffer.compress(with: .gzip)
            request.headers.add(name: "Content-Encoding", value: "gzip")
        }
        if let encoding { request.headers.add(name: "Content-Encoding", value: encoding) }
        request.body = .bytes(buffer)
        let response = try await http.execute(request, timeout: .seconds(timeout))
        let data = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(data.readableBytesView))
    }

    static let trip = TripUpload(id: "TRIP-1", startUtcNs: 1_790_000_000_000_000_000, endUtcNs: 1_790_000_600_000_000_000,
                                 statistics: ValidationTests.stats)

    @Test(.timeLimit(.minutes(2))) func contract() async throws {
        let device = try Device(trips: 1, seconds: 120)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            let tripURL = hub.url + "/v1/trips/TRIP-1"
            let body = try WireJSON.encode(Self.trip)

            let noToken = try await Self.send(http, tripURL, token: nil, body: body)
            #expect(noToken.status == 401 && noToken.error == "missing-token")
            #expect(noToken.headers.first(name: "WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await Self.send(http, tripURL, token: "not-the-token-at-all", body: body).error == "bad-token")

            let created = try await Self.send(http, tripURL, body: body)
            #expect(created.status == 201 && created.result?.outcome == .created)
            // Plain (not gzip) and reformatted: still the identical record.
            let pretty = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: body), options: [.prettyPrinted])
            let again = try await Self.send(http, tripURL, body: pretty, gzip: false)
            #expect(again.status == 200 && again.result?.outcome == .duplicate)

            var changed = Self.trip
            changed.statistics.distanceM += 1
            let conflict = try await Self.send(http, tripURL, body: try WireJSON.encode(changed))
            #expect(conflict.status == 409)
            let r = try #require(conflict.result)
            #expect(r.outcome == .conflict && r.kind == .trip && r.id == "TRIP-1")
            #expect(r.storedSha256?.count == 64 && r.receivedSha256?.count == 64 && r.storedSha256 != r.receivedSha256)

            let otherKey = try await Self.send(http, hub.url + "/v1/trips/TRIP-2", body: body)
            #expect(otherKey.status == 400 && otherKey.result?.error?.contains("differs from the key") == true)
            let missing = try await Self.send(http, hub.url + "/v1/trips/TRIP-3", body: Data(#"{"id":"TRIP-3"}"#.utf8))
            #expect(missing.status == 400 && missing.result?.error?.contains("missing field statistics") == true)

            let corrupt = try await Self.send(http, tripURL, body: Data("not gzip at all".utf8), gzip: false, encoding: "gzip")
            #expect(corrupt.status == 400 && corrupt.error == "bad-gzip")
            let brotli = try await Self.send(http, tripURL, body: body, gzip: false, encoding: "br")
            #expect(brotli.status == 415 && brotli.error == "unsupported-encoding")

            // A draft is published only through a confirmation that says so.
            let draft = DraftUpload(id: "D-1", trip: Self.trip, pathStatus: "optimal", path: [[52.5, 13.4]], obstacles: [], roadQuality: [])
            let unconfirmed = try await Self.send(http, hub.url + "/v1/drafts/D-1/confirmation",
                                                  body: try WireJSON.encode(ConfirmationUpload(confirmed: false, confirmedSha256: nil, draft: draft)))
            #expect(unconfirmed.status == 400 && unconfirmed.result?.error?.contains("confirmed: must be true") == true)
            #expect(try await Self.send(http, hub.url + "/v1/drafts/D-1", body: try WireJSON.encode(draft)).status == 201)
            #expect(try hub.records().filter { $0.kind == "confirmation" }.isEmpty, "a private draft is not published")

            // A batch: each item judged on its own, one answer per item.
            var bad = Self.trip
            bad.id = "TRIP-4"
            bad.statistics.maxSpeed = -3
            let batch = BatchRequest(records: [
                .init(id: "TRIP-1", body: .trip(Self.trip)), .init(id: "TRIP-4", body: .trip(bad)),
                .init(id: "D-1", body: .confirmation(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))),
            ])
            let answer = try await Self.send(http, hub.url + "/v1/batch", method: .POST, body: try WireJSON.encode(batch))
            #expect(answer.status == 200)
            let results = try JSONDecoder().decode(BatchResponse.self, from: answer.body).results
            #expect(results.map(\.status) == [200, 400, 201])
            #expect(results[1].error?.contains("statistics.maxSpeed") == true)
            let malformed = try await Self.send(http, hub.url + "/v1/batch", method: .POST, body: Data(#"{"records":[{"kind":"nope"}]}"#.utf8))
            #expect(malformed.status == 400 && malformed.error == "invalid-batch")

            let health = try await Self.send(http, hub.url + "/v1/health", method: .GET, token: nil, body: Data(), gzip: false)
            #expect(health.status == 200)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    @Test func sosInsideAZoneGoesWithoutItsPosition() throws {
        let device = try Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let z = Device.zone.center
        let stored = #"{"id":"SOS-Z","impact_peak":40,"impact_time_ns":5,"lat":\#(z.latitude),"lon":\#(z.longitude),"time_ns":9}"#
        let outside = #"{"id":"SOS-O","impact_peak":40,"impact_time_ns":5,"lat":48.1,"lon":11.5,"time_ns":9}"#
        try device.store.enqueueForSync(kind: .sos, id: "SOS-Z", payload: stored)
        try device.store.enqueueForSync(kind: .sos, id: "SOS-O", payload: outside)
        let builder = UploadBuilder(privacy: Device.privacy)
        let items = try device.store.outboxPending().filter { $0.kind == .sos && $0.recordID.hasPrefix("SOS-") }
        let bodies = try items.map { try builder.body(for: $0, confirmedSha256: nil) }
        #expect(bodies.contains { if case .sos(let s) = $0 { s.id == "SOS-Z" && s.position == nil } else { false } })
        #expect(bodies.contains { if case .sos(let s) = $0 { s.id == "SOS-O" && s.position == WirePosition(lat: 48.1, lon: 11.5) } else { false } })
    }
}
