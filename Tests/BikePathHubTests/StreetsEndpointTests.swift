import BikePathCore
import BikePathHub
import BikePathTestSupport
import Foundation
import HummingbirdTesting
import Synchronization
import Testing

/// `GET /v1/streets` over central London's real extract (`RealExtract`, read by the hub's own
/// import through Debian's osmium), on each store through real HTTP: the edges meeting the
/// box with their names and tags, the same on both stores; boxes it refuses.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct StreetsEndpointTests {
    static let extract = Result { try OSMImport.read(path: RealExtract.central) }
    /// About 700 × 670 m around Goswell Road's middle (the places' example in docs/api.yaml).
    static let box = BoundingBox(west: -0.1053, south: 51.5232, east: -0.0953, north: 51.5292)
    static var query: String { "/v1/streets?bbox=\(box.west),\(box.south),\(box.east),\(box.north)" }

    struct Answer: Decodable {
        var type: String
        var attribution: String
        var features: [Street]
        struct Street: Decodable {
            var geometry: Line
            var properties: [String: JSONValue]
        }
        struct Line: Decodable {
            var type: String
            var coordinates: [[Double]]
        }
    }

    /// A property's value as the answer wrote it.
    enum JSONValue: Decodable, Equatable {
        case text(String), number(Double)
        init(from decoder: any Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let s = try? c.decode(String.self) { self = .text(s) } else { self = .number(try c.decode(Double.self)) }
        }
        var text: String? { if case .text(let s) = self { s } else { nil } }
        var number: Double? { if case .number(let n) = self { n } else { nil } }
    }

    /// The answer to `uri` on a hub of `backend` holding the extract's streets.
    static func ask(_ backend: Backend, _ uris: [String]) async throws -> [TestResponse] {
        let edges = try extract.get().edges
        let answers = Mutex<[TestResponse]>([])
        try await HubContractTests.withHub(backend) { client, store in
            try await store.replaceStreets(edges)
            for uri in uris {
                let answer = try await client.execute(uri: uri, method: .get)
                answers.withLock { $0.append(answer) }
            }
        }
        return answers.withLock { $0 }
    }

    @Test(arguments: Backend.available) func theStreetsMeetingTheBoxComeWithTheirNamesAndTags(_ backend: Backend) async throws {
        let response = try #require(try await Self.ask(backend, [Self.query]).first)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/geo+json")
        let answer = try JSONDecoder().decode(Answer.self, from: Data(response.body.readableBytesView))
        #expect(answer.type == "FeatureCollection" && answer.attribution == "© OpenStreetMap contributors")
        // What the extract itself holds there, by key (the answer's order).
        let expected = try Self.extract.get().edges.filter { $0.meets(Self.box) }.sorted { $0.key < $1.key }
        #expect(expected.count > 50, "a dense box of central London: \(expected.count) edges")
        #expect(answer.features.count == expected.count)
        for (street, edge) in zip(answer.features, expected) {
            let p = street.properties
            #expect(p["way_id"]?.number == Double(edge.key.way) && p["highway"]?.text == edge.highway && p["name"]?.text == edge.name)
            #expect(p["surface"]?.text == edge.surface && p["cycleway_left"]?.text == edge.cyclewayLeft)
            #expect(p["cycleway_right"]?.text == edge.cyclewayRight && p["direction"]?.text == edge.direction.rawValue)
            #expect(abs((p["length_m"]?.number ?? -1) - edge.lengthMeters) <= 0.05)
            #expect(street.geometry.type == "LineString" && street.geometry.coordinates.count == edge.points.count)
            // Each line meets the box (to the 5 decimals, ~1 m, the answer writes).
            let lons = street.geometry.coordinates.map { $0[0] }, lats = street.geometry.coordinates.map { $0[1] }
            #expect(
                lons.min()! <= Self.box.east + 1e-5 && lons.max()! >= Self.box.west - 1e-5 && lats.min()! <= Self.box.north + 1e-5
                    && lats.max()! >= Self.box.south - 1e-5)
        }
        let names = Set(answer.features.compactMap { $0.properties["name"]?.text })
        #expect(names.contains("Goswell Road"), "\(names.sorted())")
    }

    @Test func bothStoresAnswerTheSameStreets() async throws {
        var bodies: [(Backend, Data)] = []
        for backend in Backend.available {
            let response = try #require(try await Self.ask(backend, [Self.query]).first)
            bodies.append((backend, Data(response.body.readableBytesView)))
        }
        for (backend, body) in bodies.dropFirst() { #expect(body == bodies[0].1, "\(backend) answers otherwise than \(bodies[0].0)") }
    }

    @Test(arguments: Backend.available) func boxesItCannotAnswerAreRefused(_ backend: Backend) async throws {
        // 0.1° × 0.1° at London is 77 km², over the 30 km² a street answer covers.
        let refused = [
            "/v1/streets", "/v1/streets?bbox=-0.1,51.5,-0.09", "/v1/streets?bbox=-0.09,51.5,-0.1,51.51",
            "/v1/streets?bbox=-0.1,51.5,-0.09,x", "/v1/streets?bbox=-0.15,51.45,-0.05,51.55",
        ]
        let answers = try await Self.ask(backend, refused)
        for (uri, response) in zip(refused, answers) {
            #expect(response.status == .badRequest, "\(uri)")
            #expect(HubContractTests.error(response) == "bad-bbox", "\(uri): \(String(buffer: response.body))")
        }
        #expect(String(buffer: answers[4].body).contains("77 km², more than the 30 km²"), "\(String(buffer: answers[4].body))")
    }

    /// More edges in a box than one answer holds: refused with what to do, not cut short.
    @Test(arguments: Backend.available) func anAnswerOverTheCapIsRefused(_ backend: Backend) async throws {
        // 20,001 edges of 10 m in a 1.4 km square (a street every 10 m both ways).
        let edges = (0..<20_001).map { i in
            let west = -0.1 + Double(i % 142) * 0.0001, south = 51.5 + Double(i / 142) * 0.0001
            return StreetEdge(
                key: StreetEdge.Key(way: Int64(i + 1), from: Int64(2 * i + 1), to: Int64(2 * i + 2)),
                points: [Coordinate(latitude: south, longitude: west), Coordinate(latitude: south, longitude: west + 0.0001)],
                lengthMeters: 7, highway: "residential")
        }
        try await HubContractTests.withHub(backend) { client, store in
            try await store.replaceStreets(edges)
            let all = try await client.execute(uri: "/v1/streets?bbox=-0.1,51.5,-0.08,51.52", method: .get)
            #expect(all.status == .badRequest && HubContractTests.error(all) == "too-many-streets", "\(String(buffer: all.body))")
            // Half the box answers.
            let half = try await client.execute(uri: "/v1/streets?bbox=-0.1,51.5,-0.08,51.507", method: .get)
            #expect(half.status == .ok)
        }
    }
}
