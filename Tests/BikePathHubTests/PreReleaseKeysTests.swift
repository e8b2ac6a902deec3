import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathFixtures
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import BikePathHub

/// The wire's pre-release camelCase keys (before issue 38) are read wherever wire JSON is
/// decoded, and never written: an old device's uploads are stored in today's form
/// (docs/json.md, "Key case").
@Suite(.serialized, .ownThreads) struct PreReleaseKeysTests {
    static let confirmation = Fixtures.confirmation(id: "D-1", obstacles: [("pothole", 200)])
    static let sos = SOSUpload(
        id: "S-1", timeNs: 9_000, impactTimeNs: 8_000, impactPeak: 31.5, utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4)
    )
    static let live = LivePositionUpload(utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4), speed: 4.5)
    static let result = RecordResult(
        kind: .trip, id: "T-1", status: 409, outcome: .conflict, storedSha256: String(repeating: "a", count: 64),
        receivedSha256: String(repeating: "b", count: 64))

    static func roundTrip<T: Codable & Equatable>(_ value: T) throws {
        let snake = try WireJSON.encode(value), camel = try PreReleaseJSON.encode(value)
        #expect(camel != snake, "\(T.self) has renamed keys")
        #expect(try WireKeys.decode(T.self, from: camel) == value, "\(T.self) read in the pre-release names")
        #expect(try WireKeys.decode(T.self, from: snake) == value, "\(T.self) read in today's names")
        #expect((try? JSONDecoder().decode(T.self, from: camel)) != value, "a plain decoder does not read \(T.self)'s old names")
        // Every key today's encoding writes with an underscore was renamed: the table knows its old name.
        let keys = try Self.keys(JSONSerialization.jsonObject(with: snake)).filter { $0.contains("_") }
        #expect(keys.isSubset(of: Set(WireKeys.renamed.values)), "\(keys.subtracting(WireKeys.renamed.values))")
    }

    static func keys(_ value: Any) -> Set<String> {
        if let o = value as? [String: Any] { return o.reduce(into: Set(o.keys)) { $0.formUnion(keys($1.value)) } }
        if let a = value as? [Any] { return a.reduce(into: []) { $0.formUnion(keys($1)) } }
        return []
    }

    @Test func everyWireTypeReadsItsPreReleaseKeys() throws {
        try Self.roundTrip(Self.sos)
        try Self.roundTrip(Self.confirmation)
        try Self.roundTrip(Self.confirmation.draft)
        try Self.roundTrip(Fixtures.trip("T-1"))
        try Self.roundTrip(Self.live)
        try Self.roundTrip(Self.result)
        let old = try PreReleaseJSON.encode(Self.confirmation)
        #expect(
            try RecordBody.decode(kind: .confirmation, from: old).canonicalJSON()
                == RecordBody.confirmation(Self.confirmation).canonicalJSON())
    }

    /// Both names of one key in one object: which would win is not the decoder's to say.
    @Test func aKeyUnderBothNamesIsADuplicate() throws {
        let both = Data(
            #"{"distance_m":1,"elapsed_s":2,"moving_s":2,"avg_moving_speed_mps":1,"max_speed_mps":3,"maxSpeed":9,"elevation_gain_m":0,"co2_avoided_g":1}"#
                .utf8)
        #expect(throws: DecodingError.self) { try WireKeys.decode(TripStatisticsUpload.self, from: both) }
        #expect(throws: JSONShapeProblem.duplicateKey("max_speed_mps")) { try JSONShape.check(both, limits: .upload) }
        // In different objects, each name is read where it is.
        let mixed = Data(
            #"{"id":"T-1","start_utc_ns":1,"statistics":{"distanceM":1,"elapsedS":2,"movingS":2,"avgMovingSpeed":1,"maxSpeed":3,"elevationGainM":0,"co2AvoidedG":1}}"#
                .utf8)
        #expect(try WireKeys.decode(TripUpload.self, from: mixed).statistics.maxSpeed == 3)
    }

    /// A device not yet upgraded sends camelCase: stored in today's canonical form, and its
    /// re-send (a lost acknowledgement) is a duplicate, as today's form of it is.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func anOldDevicesUploadsAreStoredInSnakeCase(_ backend: Backend) async throws {
        try await HubContractTests.withHub(backend) { client, store in
            let old = try PreReleaseJSON.encode(Self.confirmation)
            let uri = "/v1/drafts/D-1/confirmation"
            let first = try await HubContractTests.raw(client, uri, old)
            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(try await HubContractTests.raw(client, uri, old).status == .ok, "re-sent: duplicate")
            #expect(try await HubContractTests.put(client, uri, Self.confirmation).status == .ok, "today's form: the same record")
            let held = try await store.confirmations().map(\.body)
            #expect(held == [try RecordBody.confirmation(Self.confirmation).canonicalJSON()])

            let trip = Fixtures.trip("T-9")
            let batch = try PreReleaseJSON.encode(BatchRequest(records: [.init(id: "T-9", body: .trip(trip))]))
            let answer = try await HubContractTests.raw(client, "/v1/batch", batch, method: .post)
            #expect(answer.status == .ok && String(buffer: answer.body).contains(#""outcome":"created""#), "\(String(buffer: answer.body))")
            #expect(try await store.trips(device: "bike-1") == [try WireJSON.encode(trip)])

            // Both names in one object: refused before decoding, as any key twice.
            var both = try JSONSerialization.jsonObject(with: old) as! [String: Any]
            both["confirmed_sha256"] = String(repeating: "c", count: 64)
            both["confirmedSha256"] = String(repeating: "c", count: 64)
            let twice = try JSONSerialization.data(withJSONObject: both)
            let refused = try await HubContractTests.raw(client, "/v1/drafts/D-1/confirmation", twice)
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("twice"), "\(String(buffer: refused.body))")
        }
    }
}
