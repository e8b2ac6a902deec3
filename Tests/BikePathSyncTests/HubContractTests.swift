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

/// What the device puts in an upload (the hub's own contract is tested in process in BikePathHubTests).
@Suite(.serialized, .ownThreads) struct HubContractTests {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var error: String? { (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error }
        var result: RecordResult? { try? JSONDecoder().decode(RecordResult.self, from: body) }
    }

    static func send(
        _ http: HTTPClient, _ url: String, method: HTTPMethod = .PUT, token: String? = Device.token,
        body: Data, gzip: Bool = true, encoding: String? = nil, authorization: String? = nil,
        contentType: String? = "application/json", timeout: Int64 = 10
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let contentType, method != .GET { request.headers.add(name: "Content-Type", value: contentType) }
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

    static let trip = TripUpload(
        id: "TRIP-1", startUtcNs: 1_790_000_000_000_000_000, endUtcNs: 1_790_000_600_000_000_000,
        statistics: ValidationTests.stats)

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
        #expect(
            bodies.contains {
                if case .sos(let s) = $0 { s.id == "SOS-O" && s.position == WirePosition(lat: 48.1, lon: 11.5) } else { false }
            })
    }
}
