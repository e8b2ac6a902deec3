import AsyncHTTPClient
import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// `PUT /v1/manual-paths/{id}` end to end on real data (docs/hub.md, "Manual paths"):
/// central London's extract (`RealExtract`, © OpenStreetMap contributors) imported by
/// `bikepath-hub import-osm`, a real `bikepath-hub serve` on each store, two riders' devices
/// naming the same streets over HTTP, and the route search reading what they said.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct ManualPathEndpointTests {
    static let riders = ["rider-a", "rider-b"]
    static func token(_ rider: String) -> String { "london-\(rider)-0123456789abcdef" }
    static let named = ["Aldersgate Street", "Goswell Road", "Old Street"]

    static func body(
        _ streets: [String] = named, start: Coordinate = ManualPathTests.onAldersgate, end: Coordinate = ManualPathTests.onOldStreet,
        status: String = "medium"
    ) throws -> Data {
        try WireJSON.encode(
            ManualPathUpload(
                streets: streets, start: WirePosition(lat: start.latitude, lon: start.longitude),
                end: WirePosition(lat: end.latitude, lon: end.longitude), status: status))
    }

    static func put(_ http: HTTPClient, _ hub: HubProcess, _ id: String, rider: String, _ body: Data) async throws
        -> HubHardeningTests.Answer
    {
        try await HubHardeningTests.send(http, hub.url + "/v1/manual-paths/\(id)", token: token(rider), body: body, gzip: false)
    }

    /// A hub serving `storage` with a token for each rider.
    static func hub(_ storage: HubStorage, _ dir: TempDir) throws -> HubProcess {
        // The hub refuses a tokens file others may read.
        _ = FileManager.default.createFile(
            atPath: dir.file("tokens"), contents: Data(riders.map { "\($0) \(token($0))\n" }.joined().utf8),
            attributes: [.posixPermissions: 0o600])
        let database: String? = if case .postgres(let url) = storage { url } else { nil }
        return try HubProcess(db: dir.file("hub.sqlite"), tokens: dir.file("tokens"), database: database)
    }

    /// The answer's path: its line, length and streets as named, read as a client reads them.
    struct Answered: Decodable {
        struct Geometry: Decodable {
            var type: String
            var coordinates: [[Double]]
        }
        struct Street: Decodable {
            var name: String?
            var length_m: Double
        }
        struct Properties: Decodable {
            var id: String
            var status: String
            var length_m: Double
            var streets: [Street]
        }
        var type: String
        var attribution: String
        var geometry: Geometry
        var properties: Properties
    }

    @Test(.timeLimitOnceRunning(.minutes(8))) func twoRidersNamingTheSameStreetsRateThemAndRoutesSaySo() async throws {
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let (_, storage, streets) = try await StreetImportTests.imported(backend, dir)
            let byKey = Dictionary(uniqueKeysWithValues: streets.edges.map { ($0.key, $0) })
            let hub = try Self.hub(storage, dir)
            defer { hub.stop() }
            try await HubHardeningTests.withHTTP { http in
                // One rider: the path is made, answered and stored; its streets hold one rider.
                let first = try await Self.put(http, hub, "path-1", rider: "rider-a", try Self.body())
                #expect(first.status == 201, "\(backend): \(String(decoding: first.body, as: UTF8.self))")
                let path = try JSONDecoder().decode(Answered.self, from: first.body)
                #expect(path.type == "Feature" && path.geometry.type == "LineString" && path.attribution.contains("OpenStreetMap"))
                #expect(path.properties.streets.map(\.name) == Self.named, "\(backend): \(path.properties.streets.map(\.name))")
                // 575 m as the crow flies, ~660 m along the streets (`ManualPathTests`).
                #expect(path.properties.length_m > 575 && path.properties.length_m < 800, "\(backend): \(path.properties.length_m) m")
                let line = path.geometry.coordinates.map { Coordinate(latitude: $0[1], longitude: $0[0]) }
                #expect(Geodesic.distance(line[0], ManualPathTests.onAldersgate) < 15, "\(backend): starts at \(line[0])")
                #expect(Geodesic.distance(line[line.count - 1], ManualPathTests.onOldStreet) < 15, "\(backend)")

                let one = try await StreetEvidenceTests.tallies(storage)
                #expect(Set(one.keys.compactMap { byKey[$0]?.name }) == Set(Self.named), "\(backend): \(one.keys)")
                #expect(one.values.allSatisfy { $0.riders == 1 && $0.trips == 1 && StreetEvidenceTests.onlyRating($0) == .medium })
                // The longest edge of Goswell Road the path rode, routed along its allowed way.
                let goswell = try #require(
                    one.keys.compactMap { byKey[$0] }.filter { $0.name == "Goswell Road" }.max {
                        ($0.lengthMeters, $1.key) < ($1.lengthMeters, $0.key)
                    })
                let (from, to) = goswell.direction == .backward ? (0.85, 0.15) : (0.15, 0.85)
                let alone = try await StreetEvidenceTests.route(storage, along: goswell, from, to)
                let leg = try #require(alone.legs.first { $0.name == "Goswell Road" }, "\(backend): \(alone.legs)")
                #expect(leg.status == "unrated" && leg.riders == 0, "\(backend): one rider's street said \(leg)")

                // The same request again: answered as it was, nothing added.
                let again = try await Self.put(http, hub, "path-1", rider: "rider-a", try Self.body())
                #expect(again.status == 200 && again.body == first.body, "\(backend): \(again.status)")
                // Another body under the same id: refused, nothing changed.
                let other = try await Self.put(http, hub, "path-1", rider: "rider-a", try Self.body(status: "optimal"))
                #expect(other.status == 409 && other.error == "conflict", "\(backend): \(other.status) \(other.error ?? "")")
                #expect(try await StreetEvidenceTests.tallies(storage) == one, "\(backend): a repeated or refused path counted")

                // A second rider names the same streets: public, with the status they gave, in the route's legs.
                let second = try await Self.put(
                    http, hub, "their-path", rider: "rider-b", try Self.body(["aldersgate st", "Goswel Road", "old street"]))
                #expect(second.status == 201, "\(backend): \(String(decoding: second.body, as: UTF8.self))")
                let two = try await StreetEvidenceTests.tallies(storage)
                #expect(Set(two.keys) == Set(one.keys), "\(backend): the same streets typed otherwise made another path")
                #expect(two.values.allSatisfy { $0.riders == 2 && $0.trips == 2 && StreetEvidenceTests.onlyRating($0) == .medium })
                let together = try await StreetEvidenceTests.route(storage, along: goswell, from, to)
                let shown = try #require(together.legs.first { $0.name == "Goswell Road" }, "\(backend): \(together.legs)")
                #expect(shown.status == "medium" && shown.riders == 2, "\(backend): Goswell Road said \(shown)")
            }
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(8))) func whatCannotBeMadeIsRefusedWithWhyAndCountsNothing() async throws {
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let (_, storage, _) = try await StreetImportTests.imported(backend, dir)
            let hub = try Self.hub(storage, dir)
            defer { hub.stop() }
            try await HubHardeningTests.withHTTP { http in
                func refused(_ body: Data, rider: String = "rider-a") async throws -> (status: Int, error: String?, message: String) {
                    let answer = try await Self.put(http, hub, "refused", rider: rider, body)
                    let message = (try? JSONDecoder().decode(ErrorBody.self, from: answer.body))?.message ?? ""
                    return (answer.status, answer.error, message)
                }
                let unknown = try await refused(try Self.body(["Aldersgate Street", "Nowhere Lane", "Old Street"]))
                #expect(unknown.status == 422 && unknown.error == "unknown-street", "\(backend): \(unknown)")
                #expect(unknown.message == ManualPathError.unknownStreet(index: 1, name: "Nowhere Lane").description)
                let skipped = try await refused(try Self.body(["Aldersgate Street", "Old Street"]))
                #expect(skipped.status == 422 && skipped.error == "streets-do-not-meet", "\(backend): \(skipped)")
                #expect(skipped.message.contains("Aldersgate Street and Old Street do not meet"), "\(backend): \(skipped.message)")
                let offStart = try await refused(try Self.body(start: ManualPathTests.onOldStreet))
                #expect(offStart.status == 422 && offStart.error == "start-not-on-street", "\(backend): \(offStart)")
                #expect(offStart.message.hasPrefix("the start is ") && offStart.message.hasSuffix("from Aldersgate Street, not on it"))
                let badStatus = try await refused(try Self.body(status: "splendid"))
                #expect(badStatus.status == 400 && badStatus.message.contains("status: must be one of"), "\(backend): \(badStatus)")
                let stranger = try await HubHardeningTests.send(
                    http, hub.url + "/v1/manual-paths/refused", token: "not-a-token-of-this-hub-0123", body: try Self.body(), gzip: false)
                #expect(stranger.status == 401 && stranger.error == "bad-token", "\(backend): \(stranger.status)")
                #expect(try await StreetEvidenceTests.tallies(storage).isEmpty, "\(backend): a refused path counted")
                // A refused id stays free: the path made right is stored under it.
                let made = try await Self.put(http, hub, "refused", rider: "rider-a", try Self.body())
                #expect(made.status == 201, "\(backend): \(made.status)")
            }
        }
    }

    @Test(arguments: Backend.available) func aHubWithNoStreetsSaysSo(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let hub = try Self.hub(try backend.storage(dir), dir)
        defer { hub.stop() }
        try await HubHardeningTests.withHTTP { http in
            let answer = try await Self.put(http, hub, "path-1", rider: "rider-a", try Self.body())
            let message = (try? JSONDecoder().decode(ErrorBody.self, from: answer.body))?.message ?? ""
            #expect(answer.status == 422 && answer.error == "no-streets", "\(backend): \(answer.status) \(message)")
            #expect(message.contains("no streets imported") && message.contains("import-osm"), "\(backend): \(message)")
        }
    }
}
