import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// Routes over the community network (docs/hub.md, "Routes"), on a small synthesised city
/// (`GridCity`, 7 × 7 streets 200 m apart, each ridden by two riders) uploaded on each
/// store: the best route is the cheapest for the score (against Dijkstra in the test's
/// memory), alternatives share at most 70 % of their length, SQLite and PostgreSQL agree,
/// and ends far from every path are refused with the distance.
@Suite(.ownThreads) struct RouteTests {
    static let city = GridCity.rides(kilometres: 16, seed: 3)

    /// The city uploaded to a fresh store of `backend`, the map brought up to date.
    static func withCity<T: Sendable>(_ backend: Backend, _ body: @Sendable (any HubStore) async throws -> T) async throws -> T {
        let dir = try TempDir()
        defer { dir.cleanup() }
        return try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            for device in Set(city.map(\.device)) { try await store.issueToken(device: device, token: "token-of-\(device)-0123456789") }
            for (i, ride) in city.enumerated() {
                _ = try await store.put(device: ride.device, records: [(.confirmation, "D\(i)", ride.body)])
            }
            try await MapTiles.update(store)
            return try await body(store)
        }
    }

    static let (origin, destination) = (GridCity.at(30, 20), GridCity.at(1_110, 790))

    @Test(.timeLimitOnceRunning(.minutes(3))) func theBestRouteIsTheCheapestAndAlternativesDiffer() async throws {
        var best: [[LinkKey]] = []
        for backend in Backend.available {
            let keys = try await Self.withCity(backend) { store in
                let search = RouteSearch()
                let box = search.rule.searchBox(Self.origin, Self.destination)
                let routes = try await search.routes(
                    from: Self.origin, to: Self.destination, k: 3,
                    on: try await store.routingGraph(in: box, minRiders: 2))
                #expect(routes.count >= 2, "\(backend): alternatives on a grid of streets (\(routes.count))")
                #expect(routes.map(\.score) == routes.map(\.score).sorted(), "\(backend): ranked by score")
                for (i, r) in routes.enumerated() {
                    for other in routes[..<i] {
                        #expect(r.overlap(with: other) <= 0.7, "\(backend): route \(i + 1) overlaps \(r.overlap(with: other))")
                    }
                }
                // The optimum by Dijkstra over the same public links, held in memory here.
                let memory = LoadedGraph(links: try await store.networkLinks(in: box).filter { $0.isPublic(minRiders: 2) })
                let (a, b) = (try await memory.joiningPoints(near: Self.origin), try await memory.joiningPoints(near: Self.destination))
                let found = try #require(try await memory.cheapestPath(from: a, to: b, penalties: [:]))
                let leaves = try #require(found.leaves, "the ends lie on different links")
                let entered = found.links.reduce(leaves) { node, l in l.key.from == node ? l.key.to : l.key.from }
                let optimum =
                    found.links.map(search.rule.cost).reduce(0, +) + search.rule.access(found.start) + search.rule.access(found.end)
                    + search.rule.cost(from: found.start, to: leaves) + search.rule.cost(from: found.end, to: entered)
                #expect(
                    abs(routes[0].score - optimum) < 1e-6 * optimum, "\(backend): best \(routes[0].score) against the optimum \(optimum)")
                // 1.08 km east and 0.77 km north on a grid: about the Manhattan distance.
                #expect(routes[0].lengthMeters > 1_700 && routes[0].lengthMeters < 2_200, "\(backend): \(routes[0].lengthMeters) m")
                // The ends (30 m and 10 m from the nearest street) join it there.
                #expect(
                    Geodesic.distance(routes[0].path.first!, Self.origin) < 25
                        && Geodesic.distance(routes[0].path.last!, Self.destination) < 15,
                    "\(backend): joins \(Geodesic.distance(routes[0].path.first!, Self.origin)) m and \(Geodesic.distance(routes[0].path.last!, Self.destination)) m from the ends"
                )

                // 2 km west of the city: no path within 300 m, and the answer says how far the nearest is.
                let outside = GridCity.at(-2_000, 500)
                await #expect(throws: RouteSearch.Problem.self) {
                    _ = try await search.routes(
                        from: outside, to: Self.destination, k: 3,
                        on: try await store.routingGraph(in: search.rule.searchBox(outside, Self.destination), minRiders: 2))
                }
                do {
                    _ = try await search.routes(
                        from: outside, to: Self.destination, k: 3,
                        on: try await store.routingGraph(in: search.rule.searchBox(outside, Self.destination), minRiders: 2))
                } catch let RouteSearch.Problem.noPathNear(end, nearest, _) {
                    #expect(
                        end == "origin" && nearest.map { abs($0 - 2_000) < 30 } == true, "\(backend): \(end) \(String(describing: nearest))"
                    )
                }
                // A box holding more public links than a search may read is refused.
                let held = try await store.networkLinks(in: box).filter { $0.isPublic(minRiders: 2) }.count
                await #expect(throws: RouteSearch.Problem.tooManyLinks(limit: held / 2)) {
                    _ = try await store.routingGraph(in: box, minRiders: 2, maxLinks: held / 2)
                }
                _ = try await store.routingGraph(in: box, minRiders: 2, maxLinks: 10 * held)
                return routes[0].links.map(\.key)
            }
            best.append(keys)
        }
        if best.count == 2 { #expect(best[0] == best[1], "SQLite and PostgreSQL find the same best route") }
    }

    @Test(.timeLimitOnceRunning(.minutes(3))) func theHubAnswersRoutesAndTheNetworkAsGeoJSON() async throws {
        try await Self.withCity(.sqlite) { store in
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { live in
                let client = KeyCaseCheckedClient(base: live)
                let (o, d) = (Self.origin, Self.destination)
                let answer = try await client.execute(
                    uri: "/v1/routes?from=\(o.latitude),\(o.longitude)&to=\(d.latitude),\(d.longitude)&k=2", method: .get)
                #expect(answer.status == .ok && answer.headers[.contentType] == "application/geo+json")
                let routes = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.readableBytesView)) as? [String: Any])
                let features = try #require(routes["features"] as? [[String: Any]])
                #expect(features.count == 2)
                let first = try #require(features.first?["properties"] as? [String: Any])
                #expect(first["rank"] as? Int == 1 && first["best"] as? Bool == true && (first["length_m"] as? Double ?? 0) > 1_700)
                let statusM = try #require(first["status_m"] as? [String: Double])
                #expect(Set(statusM.keys) == ["optimal", "medium", "sufficient", "requiresMaintenance", "unknown"])
                #expect(abs(statusM.values.reduce(0, +) - (first["length_m"] as? Double ?? 0)) < 1)

                let far = try await client.execute(uri: "/v1/routes?from=52.0,13.0&to=\(d.latitude),\(d.longitude)", method: .get)
                #expect(far.status == .notFound)
                let refusal = try #require(try JSONSerialization.jsonObject(with: Data(far.body.readableBytesView)) as? [String: Any])
                #expect(refusal["error"] as? String == "no-path-near")
                for bad in [
                    "from=52.3&to=52.31,13.01", "from=x,y&to=52.31,13.01", "from=52.3,13.0&to=52.31,13.01&k=0",
                    "from=52.3,13.0&to=52.31,13.01&k=9", "from=52.3,13.0&to=53.3,13.0",
                ] {
                    #expect(try await client.execute(uri: "/v1/routes?\(bad)", method: .get).status == .badRequest, "\(bad)")
                }

                let (sw, ne) = (GridCity.at(0, 0), GridCity.at(1_000, 1_000))
                let network = try await client.execute(
                    uri: "/v1/map/network?bbox=\(sw.longitude),\(sw.latitude),\(ne.longitude),\(ne.latitude)", method: .get)
                #expect(network.status == .ok)
                let edges = try #require(try JSONSerialization.jsonObject(with: Data(network.body.readableBytesView)) as? [String: Any])
                let lines = try #require(edges["features"] as? [[String: Any]])
                // 6 × 6 streets meet the box: edges between crossings, ~200 m each.
                #expect(lines.count > 40, "\(lines.count) edges")
                let properties = lines.compactMap { $0["properties"] as? [String: Any] }
                #expect(properties.allSatisfy { ($0["riders"] as? Int ?? 0) >= 2 })
                #expect(
                    Set(properties.compactMap { $0["status"] as? String }).isSubset(of: [
                        "optimal", "medium", "sufficient", "requiresMaintenance", "unknown",
                    ]))
            }
        }
    }
}
