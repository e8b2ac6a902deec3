import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// Routes over the real central London extract (`RealExtract`, © OpenStreetMap contributors)
/// imported by `bikepath-hub import-osm` into each store, no community path in it: a route
/// between two points of Goswell Road follows it, a one-way street is never ridden against
/// its direction, and both stores answer the same routes.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct StreetRouteExtractTests {
    /// The point `share` of the way along `edge`'s line.
    static func along(_ edge: StreetEdge, _ share: Double) -> Coordinate {
        var left = edge.lengthMeters * share
        for (a, b) in zip(edge.points, edge.points.dropFirst()) {
            let d = Geodesic.distance(a, b)
            if left <= d { return Geodesic.interpolate(a, b, d > 0 ? left / d : 0) }
            left -= d
        }
        return edge.points.last!
    }

    /// The best route between `a` and `b` on `store`'s streets.
    static func route(_ store: any HubStore, _ a: Coordinate, _ b: Coordinate) async throws -> Route {
        let search = RouteSearch()
        let graph = try await store.routingGraph(in: search.rule.searchBox(a, b), minRiders: search.minRiders)
        return try #require(try await search.routes(from: a, to: b, k: 1, on: graph).first)
    }

    /// Each street piece of `route` ridden a way its street allows.
    static func ridesOnlyAllowedWays(_ route: Route) -> Bool {
        route.pieces.allSatisfy { $0.from == $0.to || $0.link.allows(leaving: $0.from < $0.to ? $0.link.key.from : $0.link.key.to) }
    }

    @Test func routesFollowTheStreetsOneWaysOnlyTheirWayTheSameOnBothStores() async throws {
        var answers: [(Backend, [Route])] = []
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let (_, storage, streets) = try await StreetImportTests.imported(backend, dir)
            let routes = try await storage.withStore(logger: Fixtures.logger) { store in
                // Goswell Road (primary, cycle lanes): from its southernmost edge in the extract to its northernmost.
                let goswell = streets.edges.filter { $0.name == "Goswell Road" }.sorted { $0.points[0].latitude < $1.points[0].latitude }
                let (a, b) = (Self.along(try #require(goswell.first), 0.5), Self.along(try #require(goswell.last), 0.5))
                #expect(Geodesic.distance(a, b) > 300, "\(backend): \(Geodesic.distance(a, b)) m of Goswell Road in the extract")
                let along = try await Self.route(store, a, b)
                let names = along.legs.filter { $0.kind == .street }.map(\.name)
                #expect(names.contains("Goswell Road"), "\(backend): \(along.legs)")
                let onGoswell = along.legs.filter { $0.name == "Goswell Road" }.map(\.lengthMeters).reduce(0, +)
                #expect(onGoswell > 0.5 * along.lengthMeters, "\(backend): \(onGoswell) m of \(along.lengthMeters) on Goswell Road")
                #expect(!along.legs.contains { $0.kind == .community }, "no community path in the store")
                #expect(along.legs.allSatisfy { $0.kind == .access || $0.lengthMeters >= Route.foldMeters }, "\(along.legs)")

                // Laystall Street, w3076840: one way for all. Against it, the route goes round.
                let oneWay = try #require(streets.edges.first { $0.key.way == 3_076_840 && $0.direction == .forward })
                let (head, tail) = (Self.along(oneWay, 0.8), Self.along(oneWay, 0.2))
                let with = try await Self.route(store, tail, head)
                let against = try await Self.route(store, head, tail)
                for r in [with, against, along] { #expect(Self.ridesOnlyAllowedWays(r), "\(backend): \(r.legs)") }
                let straight = Geodesic.distance(head, tail)
                #expect(with.lengthMeters < straight + 5, "\(backend): along its way \(with.lengthMeters) m, \(straight) m apart")
                #expect(against.lengthMeters > 2 * straight, "\(backend): against it \(against.lengthMeters) m, \(straight) m apart")
                return [along, with, against]
            }
            answers.append((backend, routes))
        }
        let first = try #require(answers.first)
        for (backend, routes) in answers.dropFirst() {
            for (mine, theirs) in zip(routes, first.1) {
                #expect(abs(mine.score - theirs.score) < 1e-6 * theirs.score, "\(backend): \(mine.score), \(first.0): \(theirs.score)")
                #expect(mine.legs.map(\.name) == theirs.legs.map(\.name), "\(backend) and \(first.0) differ")
                #expect(
                    mine.path.count == theirs.path.count && zip(mine.path, theirs.path).allSatisfy { Geodesic.distance($0, $1) < 0.01 },
                    "\(backend) and \(first.0) ride different ways")
            }
        }
    }
}
