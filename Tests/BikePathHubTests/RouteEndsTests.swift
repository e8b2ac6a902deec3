import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// Routes start where the rider stands (docs/hub.md, "Routes"): on `RouteTests`' grid city,
/// ends a few metres off a street join it at the projection onto the nearest link, every
/// alternative joins both ends there, both stores answer the same routes, and the answer
/// carries the access legs and the legs along the way.
@Suite(.ownThreads) struct RouteEndsTests {
    /// Ends 1–7 m off a street of the 1.2 km city (streets every 200 m; the riders'
    /// tracks scatter 2.5 m about them): as the held-back rides' origins lay 1–7 m from
    /// the network, and their routes began 76–100 m away.
    static let trips: [(from: Coordinate, to: Coordinate)] = [
        (GridCity.at(95, 3), GridCity.at(1_003, 505)),
        (GridCity.at(406, 1), GridCity.at(260, 1_195)),
        (GridCity.at(1_196, 607), GridCity.at(2, 330)),
        // A 74 m trip along one street, the issue's "k=3 for a 74 m trip".
        (GridCity.at(100, 4), GridCity.at(174, -3)),
    ]

    /// The distance from `point` to the nearest public link, measured here.
    static func nearestMeters(_ point: Coordinate, among links: [NetworkLink]) -> Double {
        links.compactMap { Geodesic.distance(from: point, toPath: [$0.from, $0.to]) }.min() ?? .infinity
    }

    @Test(.timeLimitOnceRunning(.minutes(4))) func routesStartAtTheProjectionAndEveryAlternativeJoinsBothEnds() async throws {
        var answers: [[[Route]]] = []
        for backend in Backend.available {
            let routes = try await RouteTests.withCity(backend) { store in
                let search = RouteSearch()
                var all: [[Route]] = []
                for (from, to) in Self.trips {
                    let box = search.rule.searchBox(from, to)
                    let routes = try await search.routes(from: from, to: to, k: 3, on: try await store.routingGraph(in: box, minRiders: 2))
                    let links = try await store.networkLinks(in: box).filter { $0.isPublic(minRiders: 2) }
                    let (near, far) = (Self.nearestMeters(from, among: links), Self.nearestMeters(to, among: links))
                    let best = try #require(routes.first)
                    // Joined at the network's nearest point: the access leg is the distance to it.
                    #expect(
                        abs(best.start.distanceMeters - near) < 1,
                        "\(backend): starts \(best.start.distanceMeters) m off, nearest \(near) m")
                    #expect(abs(best.end.distanceMeters - far) < 1, "\(backend): ends \(best.end.distanceMeters) m off, nearest \(far) m")
                    #expect(near < 8 && far < 8, "\(backend): the ends lie by a street (\(near) m, \(far) m)")
                    for (i, r) in routes.enumerated() {
                        // Every route leaves from the best one's joining point and arrives at its other one.
                        #expect(r.start == best.start && r.end == best.end, "\(backend): route \(i + 1) joins elsewhere")
                        #expect(r.path.first == best.start.position && r.path.last == best.end.position, "\(backend): route \(i + 1)")
                        #expect(
                            Geodesic.distance(r.path.first!, from) < near + 1 && Geodesic.distance(r.path.last!, to) < far + 1,
                            "\(backend): route \(i + 1) starts \(Geodesic.distance(r.path.first!, from)) m from the origin")
                        // The straight line between the ends is the shortest any route can be.
                        #expect(r.lengthMeters >= Geodesic.distance(best.start.position, best.end.position) - 0.01)
                    }
                    all.append(routes)
                }
                // The 74 m trip rides its street: about 74 m, not a 14.9 m stretch elsewhere.
                let short = try #require(all.last?.first)
                #expect(abs(short.lengthMeters - 74) < 8, "\(backend): the short trip rides \(short.lengthMeters) m")
                return all
            }
            answers.append(routes)
        }
        guard answers.count == 2 else { return }
        // The same routes on both stores, to rounding: the same joining points, the same
        // stretches of the same links, the same scores.
        for (t, (sqlite, postgres)) in zip(answers[0], answers[1]).enumerated() {
            #expect(sqlite.count == postgres.count, "trip \(t): \(sqlite.count) routes on SQLite, \(postgres.count) on PostgreSQL")
            for (a, b) in zip(sqlite, postgres) {
                #expect(a.start.link.key == b.start.link.key && abs(a.start.fraction - b.start.fraction) < 1e-9, "trip \(t)")
                #expect(a.end.link.key == b.end.link.key && abs(a.end.fraction - b.end.fraction) < 1e-9, "trip \(t)")
                #expect(a.pieces.map(\.link.key) == b.pieces.map(\.link.key), "trip \(t): the same links")
                #expect(abs(a.score - b.score) < 1e-6 * a.score, "trip \(t): scores \(a.score) and \(b.score)")
            }
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(3))) func theAnswerDrawsTheAccessLegsAndListsTheLegs() async throws {
        try await RouteTests.withCity(.sqlite) { store in
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { live in
                let client = KeyCaseCheckedClient(base: live)
                let (o, d) = Self.trips[0]
                let answer = try await client.execute(
                    uri: "/v1/routes?from=\(o.latitude),\(o.longitude)&to=\(d.latitude),\(d.longitude)&k=3", method: .get)
                #expect(answer.status == .ok)
                let routes = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView)) as? [String: Any])
                let features = try #require(routes["features"] as? [[String: Any]])
                #expect(!features.isEmpty)
                for feature in features {
                    let line = try #require((feature["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
                    // From the asked origin to the asked destination (positions rounded to 1e-5°).
                    #expect(abs(line[0][0] - o.longitude) < 1e-5 && abs(line[0][1] - o.latitude) < 1e-5, "\(line[0])")
                    #expect(abs(line.last![0] - d.longitude) < 1e-5 && abs(line.last![1] - d.latitude) < 1e-5, "\(line.last!)")
                    let properties = try #require(feature["properties"] as? [String: Any])
                    let legs = try #require(properties["legs"] as? [[String: Any]])
                    #expect(legs.allSatisfy { Set($0.keys) == ["kind", "name", "length_m", "status", "riders"] }, "\(legs)")
                    // The access legs are the straight lines drawn first and last, listed from 5 m.
                    func point(_ i: Int) -> Coordinate { Coordinate(latitude: line[i][1], longitude: line[i][0]) }
                    let accesses = [Geodesic.distance(point(0), point(1)), Geodesic.distance(point(line.count - 2), point(line.count - 1))]
                    var network = legs[...]
                    if accesses[0] >= 5 {
                        try #require(!network.isEmpty)
                        let first = network.removeFirst()
                        #expect(first["kind"] as? String == "access" && first["status"] is NSNull && first["riders"] as? Int == 0)
                        #expect(abs((first["length_m"] as? Double ?? -1) - accesses[0]) < 1.5, "\(first)")
                    }
                    if accesses[1] >= 5 {
                        try #require(!network.isEmpty)
                        let last = network.removeLast()
                        #expect(last["kind"] as? String == "access" && abs((last["length_m"] as? Double ?? -1) - accesses[1]) < 1.5)
                    }
                    #expect(network.allSatisfy { $0["kind"] as? String != "access" }, "no access leg under 5 m: \(legs)")
                    #expect(!network.isEmpty && network.allSatisfy { $0["kind"] as? String == "community" && $0["name"] is NSNull })
                    // No stretch under 5 m is listed: it folds into its neighbour.
                    #expect(network.count == 1 || network.allSatisfy { ($0["length_m"] as? Double ?? 0) >= 5 }, "\(legs)")
                    // Legs are maximal: two in a row differ in status.
                    for (a, b) in zip(network, network.dropFirst()) { #expect(a["status"] as? String != b["status"] as? String) }
                    #expect(network.allSatisfy { ($0["riders"] as? Int ?? 0) >= 2 }, "public paths: 2 riders at least")
                    let sum = network.map { $0["length_m"] as? Double ?? 0 }.reduce(0, +)
                    #expect(abs(sum - (properties["length_m"] as? Double ?? 0)) < 1, "legs \(sum) m, route \(properties["length_m"] ?? "")")
                }
            }
        }
    }
}
