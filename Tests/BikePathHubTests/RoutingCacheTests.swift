import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The kept graph under changes (`RoutingCache`; docs/hub.md, "Both stores, one graph"): a
/// soft change (the riders' evidence) is answered on the last graph while one rebuild runs,
/// and routed on once it is swapped in; a hard one (a street import) by the next search;
/// concurrent searches after either share one build.
@Suite(.ownThreads) struct RoutingCacheTests {
    /// Two ways between the same junctions 400 m apart: Short Street straight, Long Street
    /// 4 % longer by a bend. Both residential, so Short Street is the best until rated.
    static let streets = [
        StreetRouteTests.street(1, 1, 2, [(0, 0), (400, 0)], name: "Short Street"),
        StreetRouteTests.street(2, 1, 2, [(0, 0), (200, 60), (400, 0)], name: "Long Street"),
    ]
    static let (origin, destination) = (GridCity.at(-10, 0), GridCity.at(410, 0))

    /// Two riders rating Short Street as needing repair (factor 2.0 over 1.2: Long Street wins).
    static func shortStreetNeedsRepair(_ store: any HubStore) async throws {
        var evidence = StreetEvidence()
        evidence.rides.trips = 2
        evidence.rides.devices = ["rider-a", "rider-b"]
        evidence.rides.ratings = [0, 0, 0, 2]
        let cursor = try await store.networkCursor()
        var change = NetworkChange(
            network: PathNetwork(), from: cursor, appliedTo: cursor.applied,
            streets: [StreetIncrement(key: streets[0].key, way: .forward, evidence: evidence)])
        change.to = cursor
        #expect(try await store.commit(change))
    }

    static func cache(of store: any HubStore) -> RoutingCache {
        (store as? SQLiteHubStore)?.routingCache ?? (store as! PostgresHubStore).routingCache
    }

    /// The streets the best route between `origin` and `destination` rides, by name.
    static func bestStreets(_ store: any HubStore) async throws -> [String] {
        let search = RouteSearch()
        let graph = try await store.routingGraph(in: search.rule.searchBox(origin, destination), minRiders: search.minRiders)
        return try await search.routes(from: origin, to: destination, k: 1, on: graph).first?.legs.compactMap(\.name) ?? []
    }

    /// Runs `body` on a fresh migrated store of each kind.
    static func withEachStore(_ body: @Sendable (Backend, any HubStore) async throws -> Void) async throws {
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await store.migrate()
                try await body(backend, store)
            }
        }
    }

    @Test func aSoftChangeIsAnsweredOnTheLastGraphUntilItsRebuildIsSwappedIn() async throws {
        try await Self.withEachStore { backend, store in
            try await store.replaceStreets(Self.streets)
            let cache = Self.cache(of: store)
            #expect(try await Self.bestStreets(store) == ["Short Street"], "\(backend)")
            #expect(cache.buildsStarted == 1, "\(backend)")
            try await Self.shortStreetNeedsRepair(store)
            // The next search does not wait for the rebuild it starts: it rides the last graph.
            #expect(try await Self.bestStreets(store) == ["Short Street"], "\(backend): answered on the last graph")
            #expect(cache.buildsStarted == 2, "\(backend)")
            await cache.settled()
            #expect(try await Self.bestStreets(store) == ["Long Street"], "\(backend): the rebuild swapped in")
            #expect(cache.buildsStarted == 2, "\(backend): the new graph holds the change")
        }
    }

    @Test func concurrentSearchesAfterAChangeStartOneBuild() async throws {
        try await Self.withEachStore { backend, store in
            let cache = Self.cache(of: store)
            func searchAtOnce(_ n: Int) async throws -> [[String]] {
                try await withThrowingTaskGroup(of: [String].self) { group in
                    for _ in 0..<n { group.addTask { try await Self.bestStreets(store) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            // A hard change: all eight wait for the one build of the imported streets.
            try await store.replaceStreets(Self.streets)
            #expect(try await searchAtOnce(8) == Array(repeating: ["Short Street"], count: 8), "\(backend)")
            #expect(cache.buildsStarted == 1, "\(backend)")
            // A soft change: all eight answered on the last graph, one rebuild started.
            try await Self.shortStreetNeedsRepair(store)
            #expect(try await searchAtOnce(8).allSatisfy { $0 == ["Short Street"] || $0 == ["Long Street"] }, "\(backend)")
            await cache.settled()
            #expect(cache.buildsStarted == 2, "\(backend)")
            #expect(try await searchAtOnce(8) == Array(repeating: ["Long Street"], count: 8), "\(backend)")
        }
    }

    /// The cache alone, its builds held until released: what a search is answered while one runs.
    @Test func aSearchWaitsForARebuildOnlyPastTheStalenessBound() async throws {
        let (old, new) = (KeptGraph(community: [], streets: Self.streets), KeptGraph(community: [], streets: [Self.streets[1]]))
        for (bound, waits) in [(RoutingCache.staleness, false), (Duration.zero, true)] {
            let cache = RoutingCache(staleness: bound)
            #expect(try await cache.graph(minRiders: 2, version: .init(hard: 1, soft: 1)) { old } === old)
            let (released, release) = AsyncStream<Void>.makeStream()
            let rebuild: @Sendable () async throws -> KeptGraph = {
                for await _ in released { break }
                return new
            }
            if waits {
                release.yield()
                #expect(try await cache.graph(minRiders: 2, version: .init(hard: 1, soft: 2), read: rebuild) === new)
            } else {
                // Held: the search is answered on the old graph, and so is the next one, with no second build.
                #expect(try await cache.graph(minRiders: 2, version: .init(hard: 1, soft: 2), read: rebuild) === old)
                #expect(try await cache.graph(minRiders: 2, version: .init(hard: 1, soft: 3), read: rebuild) === old)
                #expect(cache.buildsStarted == 2)
                release.yield()
                await cache.settled()
                // Swapped in: a search that read the version the rebuild read is answered on it.
                #expect(try await cache.graph(minRiders: 2, version: .init(hard: 1, soft: 2)) { old } === new)
            }
            // A hard change: the search waits for the new graph.
            let hard = KeptGraph(community: [], streets: [])
            #expect(try await cache.graph(minRiders: 2, version: .init(hard: 2, soft: 3)) { hard } === hard)
        }
    }
}
