import BikePathAPI
import BikePathCore
import BikePathTestSupport
import Foundation
import GRDB
import Testing

@testable import BikePathHub

/// Corroborated obstacles on the imported streets (docs/hub.md, "The riders' evidence on the
/// streets" and "Routes"): each lies on the street piece nearest it within 15 m, and a route
/// pays for it there as on a community link, on both stores alike.
@Suite(.serialized, .ownThreads) struct StreetObstacleTests {
    /// Two ways between the same junctions 400 m apart along 52.52 N (`Fixtures.at`, where
    /// `Fixtures.confirmation` rides): Short Street straight, Long Street 4.4 % longer by a bend
    /// (2 × √(200² + 60²) = 417.6 m). Both residential (1.2 a metre by their tags).
    static func streets(_ which: [Int] = [0, 1]) -> [StreetEdge] {
        let all = [
            StreetRouteTests.street(1, 1, 2, [(0, 0), (400, 0)], name: "Short Street", at: Self.at),
            StreetRouteTests.street(2, 1, 2, [(0, 0), (200, 60), (400, 0)], name: "Long Street", at: Self.at),
        ]
        return which.map { all[$0] }
    }
    static func at(_ east: Double, _ north: Double) -> Coordinate { Fixtures.at(east: east, north: north) }
    static let (origin, destination) = (at(-10, 0), at(410, 0))

    /// A spot as the maintainer publishes it: two riders, two reports, no silent ride.
    static func spot(_ east: Double, _ north: Double, corroborated: Bool = true) -> ReportedObstacle {
        ReportedObstacle(
            position: at(east, north), kind: "pothole", riders: corroborated ? 2 : 1, reportingTrips: corroborated ? 2 : 1,
            passesWithoutReport: 0, confidence: 0.86, corroborated: corroborated, firstDay: nil, lastDay: nil)
    }

    /// The best route between `origin` and `destination` on `store`'s graph, once any rebuild is swapped in.
    static func best(_ store: any HubStore) async throws -> Route {
        let search = RouteSearch()
        let box = search.rule.searchBox(origin, destination)
        // The first search after a soft change starts its rebuild; the next rides it.
        _ = try await store.routingGraph(in: box, minRiders: search.minRiders)
        await RoutingCacheTests.cache(of: store).settled()
        let graph = try await store.routingGraph(in: box, minRiders: search.minRiders)
        return try #require(try await search.routes(from: origin, to: destination, k: 1, on: graph).first)
    }

    static func names(_ route: Route) -> [String] { route.legs.compactMap(\.name) }

    @Test func anObstacleLiesOnTheStreetPieceNearestItWithin15m() throws {
        let rule = RouteRule()
        let on = StreetLinks.links(community: [], streets: Self.streets([0]), obstacles: [Self.spot(200, 3)])
        #expect(on.map(\.obstacles.count) == [1], "\(on.map(\.obstacles))")
        // Charged by the one cost: metres by the tags, plus 150 m × confidence.
        #expect(abs(rule.cost(on[0]) - (on[0].lengthMeters * 1.2 + 150 * 0.86)) < 1e-6, "\(rule.cost(on[0]))")
        #expect(on[0].status == .requiresMaintenance)
        // 40 m off the street (a yard, the next street): on none of it. One rider's report: not charged.
        for spot in [Self.spot(200, 40), Self.spot(200, -16), Self.spot(200, 0, corroborated: false)] {
            let off = StreetLinks.links(community: [], streets: Self.streets([0]), obstacles: [spot])
            #expect(off.allSatisfy { $0.obstacles == LinkObstacles() }, "\(spot.position): \(off.map(\.obstacles))")
            #expect(abs(rule.cost(off[0]) - off[0].lengthMeters * 1.2) < 1e-6)
        }
        // Where two streets pass within 15 m, the nearest takes it, once.
        let both = StreetLinks.links(community: [], streets: Self.streets(), obstacles: [Self.spot(200, 50)])
        #expect(both.map(\.obstacles.count).reduce(0, +) == 1)
        #expect(both.first { $0.obstacles.count == 1 }?.street?.name == "Long Street")
    }

    /// Each tile's slice stored with `obstacles` in it, as the maintainer stores one (its
    /// mark claimed, no community link in it): only its slice and its obstacles change.
    static func publish(_ obstacles: [ReportedObstacle], _ store: any HubStore) async throws {
        for (tile, inside) in Dictionary(grouping: obstacles, by: { MapTiles.grid.cell(of: $0.position) }) {
            try await store.index([], dirty: [tile])
            let dirty = try #require(try await store.claimDirtyMapTiles(limit: 10).first { $0.tile == tile })
            let slice = try JSONEncoder().encode(MapSlice(obstacles: inside, cells: []))
            #expect(try await store.storeMapTile(RemadeTile(tile: dirty, slice: slice, obstacles: inside)))
        }
    }

    @Test func aNewObstacleOnAStreetReachesTheKeptGraphAndTheRouteGoesRound() async throws {
        var scores: [(Backend, [Double])] = []
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            scores.append(
                (
                    backend,
                    try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in try await Self.goRound(backend, store) }
                ))
        }
        for (backend, theirs) in scores.dropFirst() {
            #expect(zip(theirs, scores[0].1).allSatisfy { abs($0 - $1) < 1e-6 }, "\(backend): \(theirs), \(scores[0])")
        }
    }

    /// `aNewObstacleOnAStreetReachesTheKeptGraphAndTheRouteGoesRound` on one store: the scores of its routes.
    static func goRound(_ backend: Backend, _ store: any HubStore) async throws -> [Double] {
        try await store.migrate()
        try await store.replaceStreets(Self.streets())
        let clear = try await Self.best(store)
        #expect(Self.names(clear) == ["Short Street"], "\(backend): \(clear.legs)")
        // 40 m off Short Street (the graph is rebuilt), and one rider's: nothing charged.
        try await Self.publish([Self.spot(200, -40), Self.spot(100, 0, corroborated: false)], store)
        let off = try await Self.best(store)
        #expect(Self.names(off) == ["Short Street"] && abs(off.score - clear.score) < 1e-6, "\(backend): \(off.score)")
        // On it: 1.2 × 400 + 150 × 0.86 = 609 > 1.2 × 417.6 = 501 round by Long Street.
        let before = RoutingCacheTests.cache(of: store).buildsStarted
        try await Self.publish([Self.spot(200, 2)], store)
        let round = try await Self.best(store)
        #expect(RoutingCacheTests.cache(of: store).buildsStarted == before + 1, "\(backend): the obstacle moved the routing version")
        #expect(Self.names(round) == ["Long Street"], "\(backend): \(round.legs)")
        // The tile remade with the same obstacles (another ride's reports elsewhere in it), and
        // one with one rider's spot only: the graph is not rebuilt.
        let settled = RoutingCacheTests.cache(of: store).buildsStarted
        try await Self.publish([Self.spot(200, 2), Self.spot(210, 40, corroborated: false)], store)
        try await Self.publish([Self.spot(5_000, 0, corroborated: false)], store)
        #expect(Self.names(try await Self.best(store)) == ["Long Street"])
        #expect(RoutingCacheTests.cache(of: store).buildsStarted == settled, "\(backend): nothing the graph reads changed")
        #expect(round.obstacles(among: [Self.spot(200, 2)], radiusMeters: StreetLinks.obstacleMeters).isEmpty)
        // No way round: the route takes it and pays 150 m × 0.86, and the answer lists it.
        try await store.replaceStreets(Self.streets([0]))
        let through = try await Self.best(store)
        #expect(Self.names(through) == ["Short Street"], "\(backend): \(through.legs)")
        #expect(abs(through.score - (clear.score + 150 * 0.86)) < 1e-6, "\(backend): \(through.score), clear \(clear.score)")
        #expect(through.obstacles(among: try await store.corroboratedObstacles(), radiusMeters: StreetLinks.obstacleMeters).count == 1)
        // The route answer reads its box's tiles' obstacles: the corroborated spots their slices
        // hold (`publish` stores the others too; the maintainer's slices hold none), no other tile's.
        let tile = MapTiles.grid.cell(of: Self.spot(200, 2).position)
        let (rows, columns) = (tile.row...tile.row, tile.column...tile.column)
        let sliced = try await store.mapSlices(rows: rows, columns: columns).flatMap { try MapSlice.decoded($0).obstacles }
            .filter(\.corroborated)
        #expect(try await store.corroboratedObstacles(rows: rows, columns: columns) == sliced && sliced.count == 1, "\(backend)")
        #expect(try await store.corroboratedObstacles(rows: rows, columns: (tile.column + 1)...(tile.column + 9)).isEmpty, "\(backend)")
        #expect(through.legs.first { $0.name == "Short Street" }?.status == "requiresMaintenance", "\(through.legs)")
        return [clear.score, round.score, through.score]
    }

    /// A hub upgraded from before the obstacles had a table of their own (schema step v18):
    /// its stored tiles are marked dirty, and the maintainer's next pass fills the table.
    @Test func anUpgradedHubRemakesItsTilesAndRoutesKnowTheirObstacles() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("hub.sqlite")
        let rides = try ["rider-a", "rider-b"].map { rider in
            (device: rider, body: try WireJSON.encode(Fixtures.confirmation(id: "R-\(rider)", meters: 400, obstacles: [("pothole", 200)])))
        }
        try await HubStorage.sqlite(path: path).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: rides)
            for ride in rides { _ = try await store.put(device: ride.device, records: [(.confirmation, "R-\(ride.device)", ride.body)]) }
            try await MapMaintainer.pass(store, logger: Fixtures.logger)
            #expect(try await store.corroboratedObstacles().count == 1)
        }
        // As the build before step v18 left it: its tiles stored, no table of obstacles.
        let old = try DatabaseQueue(path: path)
        try await old.write { db in
            try db.execute(sql: "DROP TABLE routing_obstacles; DELETE FROM grdb_migrations WHERE identifier = 'v18-routing-obstacles'")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM map_dirty") == 0)
        }
        try old.close()
        try await HubStorage.sqlite(path: path).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            #expect(try await store.corroboratedObstacles().isEmpty)
            #expect(try await !store.dirtyMapTiles(limit: 100).isEmpty, "the stored tiles wait to be remade")
            try await MapMaintainer.pass(store, logger: Fixtures.logger)
            let spots = try await store.corroboratedObstacles()
            #expect(spots.count == 1 && spots.allSatisfy(\.corroborated), "\(spots)")
        }
    }

    /// Two riders ride Short Street and report a pothole at its middle; the hub's map maintainer
    /// corroborates it, rates the street by their rides and adds their community path along it.
    @Test(.timeLimitOnceRunning(.minutes(4))) func aCorroboratedPotholeOnAStreetIsAvoidedAndChargedWhereItMustBeRidden() async throws {
        var answers: [(Backend, [Route])] = []
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let rides = try ["rider-a", "rider-b"].map { rider in
                (
                    device: rider,
                    body: try WireJSON.encode(Fixtures.confirmation(id: "R-\(rider)", meters: 400, obstacles: [("pothole", 200)]))
                )
            }
            let routes = try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await Fixtures.prepare(store, for: rides)
                try await store.replaceStreets(Self.streets())
                // One rider's report: not corroborated, and neither his path nor his rating public.
                _ = try await store.put(device: rides[0].device, records: [(.confirmation, "R-rider-a", rides[0].body)])
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                #expect(try await store.corroboratedObstacles().isEmpty, "\(backend)")
                let one = try await Self.best(store)
                #expect(Self.names(one) == ["Short Street"], "\(backend): \(one.legs)")
                // The second: corroborated (2 reports, no silent ride: 0.86). Short Street, rated
                // optimal, costs 400 + 129 m, its community path beside it too; Long Street 501.
                _ = try await store.put(device: rides[1].device, records: [(.confirmation, "R-rider-b", rides[1].body)])
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                let spots = try await store.corroboratedObstacles()
                #expect(spots.count == 1 && spots[0].riders == 2, "\(backend): \(spots)")
                let confidence = try #require(spots.first).confidence
                let round = try await Self.best(store)
                #expect(Self.names(round) == ["Long Street"], "\(backend): \(round.legs)")
                #expect(round.obstacles(among: spots, radiusMeters: StreetLinks.obstacleMeters).isEmpty)
                // Without Long Street the route rides past it, on the street or the path, and pays for it.
                try await store.replaceStreets(Self.streets([0]))
                let through = try await Self.best(store)
                #expect(through.obstacles(among: spots, radiusMeters: StreetLinks.obstacleMeters).count == 1, "\(backend)")
                let rated = through.lengthMeters * RouteRule().statusFactors[0]
                let access = RouteRule().access(through.start) + RouteRule().access(through.end)
                #expect(
                    abs(through.score - (rated + access + 150 * confidence)) < 0.5,
                    "\(backend): \(through.score) = \(rated) m optimal + \(access) access + 150 × \(confidence)? \(through.legs)")
                return [one, round, through]
            }
            answers.append((backend, routes))
        }
        let first = try #require(answers.first)
        // The same scores; the same legs where one way is cheapest (past the pothole the street
        // and the path beside it cost the same: either may be taken).
        func said(_ route: Route) -> [String] { route.legs.map { "\($0.kind) \($0.name ?? "-") \($0.status ?? "-") \($0.riders)" } }
        for (backend, routes) in answers.dropFirst() {
            for (i, (mine, theirs)) in zip(routes, first.1).enumerated() {
                #expect(abs(mine.score - theirs.score) < 1e-6 * theirs.score, "\(backend): \(mine.score), \(first.0): \(theirs.score)")
                #expect(i == 2 || said(mine) == said(theirs), "\(backend): \(said(mine)), \(first.0): \(said(theirs))")
            }
        }
    }
}
