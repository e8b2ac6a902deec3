import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The kept routing graph (`KeptGraph`, `RoutingCache`; docs/hub.md, "Both stores, one
/// graph"): built once from every street and public path, it answers a search the routes
/// the graph of the search's box alone answers, and a store's change to the streets is
/// routed on by the next search.
@Suite(.ownThreads) struct KeptGraphTests {
    /// A town of streets 120 m apart (a point in each block's side), some one-way, of mixed
    /// classes, and riders' paths across blocks from corner to corner, 5 m off the streets
    /// (joined), rated at random.
    static func town(side: Int, seed: UInt64) -> (streets: [StreetEdge], paths: [NetworkLink]) {
        var rng = SplitMix64(state: seed)
        let classes = ["residential", "cycleway", "tertiary", "primary", "service"]
        let directions: [StreetRules.Direction] = [.both, .both, .both, .forward, .backward]
        func node(_ x: Int, _ y: Int) -> Int64 { Int64(y * side + x + 1) }
        func at(_ x: Double, _ y: Double) -> Coordinate { GridCity.at(x * 120, y * 120) }
        var streets: [StreetEdge] = []
        for y in 0..<side {
            for x in 0..<side {
                for (dx, dy) in [(1, 0), (0, 1)] where x + dx < side && y + dy < side {
                    let points = [
                        at(Double(x), Double(y)), at(Double(x) + 0.5 * Double(dx), Double(y) + 0.5 * Double(dy)),
                        at(Double(x + dx), Double(y + dy)),
                    ]
                    let length = zip(points, points.dropFirst()).map { Geodesic.distance($0, $1) }.reduce(0, +)
                    streets.append(
                        StreetEdge(
                            key: .init(way: Int64(streets.count + 1), from: node(x, y), to: node(x + dx, y + dy)), points: points,
                            lengthMeters: length, highway: classes.randomElement(using: &rng)!, name: "Street \(streets.count % 7)",
                            direction: directions.randomElement(using: &rng)!))
                }
            }
        }
        var paths: [NetworkLink] = []
        var nextNode: Int64 = 1
        for _ in 0..<(side * side / 4) {
            let (x, y) = (Double(Int.random(in: 0..<(side - 1), using: &rng)), Double(Int.random(in: 0..<(side - 1), using: &rng)))
            let offset = 5 / (120 * 1.414)
            let (from, to) = (at(x + offset, y + offset), at(x + 1 - offset, y + 1 - offset))
            let steps = Int(Geodesic.distance(from, to) / 12)
            let status = Int.random(in: 0..<4, using: &rng)
            var ratings = [0, 0, 0, 0]
            ratings[status] = 2
            for s in 0..<steps {
                let (p, q) = (
                    Geodesic.interpolate(from, to, Double(s) / Double(steps)), Geodesic.interpolate(from, to, Double(s + 1) / Double(steps))
                )
                let key = LinkKey(nextNode + Int64(s), nextNode + Int64(s) + 1)
                paths.append(
                    NetworkLink(
                        id: Int64(paths.count + 1), key: key, from: p, to: q, trips: 2, riders: 2, lastDay: nil, ratings: ratings,
                        obstacles: LinkObstacles()))
            }
            nextNode += Int64(steps) + 1
        }
        return (streets, paths)
    }

    @Test func theKeptGraphAnswersTheRoutesOfTheSearchBoxsOwnGraph() async throws {
        // 34 × 34 streets, 4 km across: a search box (its ends ≤ 1.5 km apart, 1.3 km of
        // margin) holds part of the town, so the kept graph's box restriction is exercised.
        let side = 34
        let (streets, paths) = Self.town(side: side, seed: 7)
        let kept = KeptGraph(community: paths, streets: streets)
        let search = RouteSearch()
        var rng = SplitMix64(state: 11)
        var compared = 0
        for _ in 0..<30 {
            let extent = Double((side - 1) * 120)
            let (x, y) = (Double.random(in: 0...extent, using: &rng), Double.random(in: 0...extent, using: &rng))
            let (d, angle) = (Double.random(in: 200...1_500, using: &rng), Double.random(in: 0..<(2 * .pi), using: &rng))
            let (a, b) = (GridCity.at(x, y), GridCity.at(min(max(x + d * cos(angle), 0), extent), min(max(y + d * sin(angle), 0), extent)))
            let box = search.rule.searchBox(a, b)
            let own = LoadedGraph(
                links: StreetLinks.links(community: paths.filter { $0.meets(box) }, streets: streets.filter { $0.meets(box) }))
            let expected = try await search.routes(from: a, to: b, k: 3, on: own)
            let answered = try await search.routes(from: a, to: b, k: 3, on: kept.view(in: box))
            #expect(answered.count == expected.count, "\(a) to \(b)")
            for (mine, theirs) in zip(answered, expected) {
                #expect(abs(mine.score - theirs.score) <= 1e-9 * theirs.score, "\(a) to \(b): \(mine.score), box graph \(theirs.score)")
                #expect(
                    mine.path.count == theirs.path.count && zip(mine.path, theirs.path).allSatisfy { Geodesic.distance($0, $1) < 0.001 },
                    "\(a) to \(b): another way than the box graph's")
                #expect(mine.legs == theirs.legs)
            }
            compared += 1
        }
        #expect(compared == 30)
    }

    /// The search budget (`RouteRule.maxLinks`) counted in the graph: each link once, by
    /// the cell its first end lies in; the same count whether the box's cells or (for a box
    /// larger than the network) the network's cells are walked; over the budget refused.
    @Test func theSearchBudgetCountsEachLinkOnceByWhereItStarts() throws {
        let (streets, paths) = Self.town(side: 12, seed: 3)
        let kept = KeptGraph(community: paths, streets: streets)
        let all = kept.size.links
        let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
        #expect(kept.linkCount(in: world, upTo: .max) == all)
        let ends = kept.links.map(\.from)
        let around = BoundingBox(
            west: ends.map(\.longitude).min()!, south: ends.map(\.latitude).min()!, east: ends.map(\.longitude).max()!,
            north: ends.map(\.latitude).max()!)
        #expect(kept.linkCount(in: around, upTo: .max) == all, "the box's own cells, walked one by one")
        // The town's south-west quarter: the links starting in its cells, no others.
        let quarter = BoundingBox(
            west: around.west, south: around.south, east: (around.west + around.east) / 2, north: (around.south + around.north) / 2)
        let (sw, ne) = (
            KeptGraph.cell(of: Coordinate(latitude: quarter.south, longitude: quarter.west)),
            KeptGraph.cell(of: Coordinate(latitude: quarter.north, longitude: quarter.east))
        )
        let inQuarter = ends.map(KeptGraph.cell(of:)).filter { (sw.x...ne.x).contains($0.x) && (sw.y...ne.y).contains($0.y) }.count
        #expect(inQuarter > 0 && inQuarter < all)
        #expect(kept.linkCount(in: quarter, upTo: .max) == inQuarter)
        #expect(throws: RouteSearch.Problem.tooManyLinks(limit: inQuarter - 1)) { _ = try kept.view(in: quarter, maxLinks: inQuarter - 1) }
        _ = try kept.view(in: quarter, maxLinks: inQuarter)
    }

    @Test func aStreetImportIsRoutedOnByTheNextSearch() async throws {
        let first = [StreetRouteTests.street(1, 1, 2, [(0, 0), (400, 0)], name: "First Street")]
        let second = [StreetRouteTests.street(2, 3, 4, [(0, 400), (400, 400)], name: "Second Street")]
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await store.migrate()
                let search = RouteSearch()
                func best(_ y: Double) async throws -> Route? {
                    let (a, b) = (GridCity.at(20, y), GridCity.at(380, y))
                    let graph = try await store.routingGraph(in: search.rule.searchBox(a, b), minRiders: search.minRiders)
                    return try await search.routes(from: a, to: b, k: 1, on: graph).first
                }
                try await store.replaceStreets(first)
                #expect(try await best(0)?.legs.compactMap(\.name) == ["First Street"], "\(backend)")
                // Re-imported: First Street gone, Second Street 400 m north, beyond the reach of y = 0.
                try await store.replaceStreets(second)
                #expect(try await best(400)?.legs.compactMap(\.name) == ["Second Street"], "\(backend)")
                await #expect(throws: RouteSearch.Problem.self, "\(backend): First Street is no longer routed on") {
                    _ = try await best(0)
                }
            }
        }
    }
}
