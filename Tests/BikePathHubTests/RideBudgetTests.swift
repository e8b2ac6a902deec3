import BikePathAPI
import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// What one ride may cost the map (`RideBudget`, docs/hub.md "Upload budget"): the hostile
/// rides of the adversarial pass are over it, with the limit named; long real rides are not;
/// the geometry at the antimeridian costs a step its metres, not the world's width.
@Suite(.ownThreads) struct RideBudgetTests {
    static func draft(_ path: [Coordinate], stretches: [RoadSegmentUpload] = []) -> DraftUpload {
        DraftUpload(
            id: "D1", trip: Fixtures.trip("T1"), pathStatus: nil, path: path.map { [$0.latitude, $0.longitude] }, obstacles: [],
            roadQuality: stretches)
    }

    /// The path that killed every restart: around the North Pole, 1,250 times.
    @Test func aPathRoundThePoleIsRefusedByLatitude() {
        let lap = [(90.0, 0.0), (90, 180), (89.9999, 90), (90, -180)].map { Coordinate(latitude: $0.0, longitude: $0.1) }
        let problems = RideBudget.problems(Self.draft(Array(repeating: lap, count: 1_250).flatMap { $0 }), prefix: "draft.")
        #expect(problems == ["draft.path[0]: beyond ±85° of latitude; the map indexes rides within ±85°"])
    }

    /// A zigzag of 1.99 km steps (each under the 5 km a step may ride): 17,000 km in 348 KB.
    @Test func aZigzagIsRefusedByLength() {
        let path = (0..<8_700).map { i in Fixtures.at(east: i % 2 == 0 ? 0 : 1_990, north: Double(i) * 10) }
        let problems = RideBudget.problems(Self.draft(path), prefix: "")
        #expect(problems == ["path: longer than 1500 km; the map indexes rides of at most 1500 km"])
    }

    /// 200,000 points a metre apart: 200 km, but each step's cells are measured on their own.
    @Test func aDenseGiantRideIsRefusedByTheCellsItMeasures() {
        let path = (0..<200_000).map { Fixtures.at(east: Double($0)) }
        let problems = RideBudget.problems(Self.draft(path), prefix: "")
        #expect(problems.count == 1 && problems[0].contains("more than 3000000 map cells of 10 m"), "\(problems)")
    }

    /// 50,000 stretches scattered over a 100 km square: each dirties its own tiles.
    @Test func scatteredStretchesAreRefusedByTheTilesTheyReach() {
        let stretches = (0..<50_000).map { i in
            let p = Fixtures.at(east: Double(i % 224) * 450, north: Double(i / 224) * 450)
            let w = WirePosition(lat: p.latitude, lon: p.longitude)
            return RoadSegmentUpload(startOffsetS: 0, endOffsetS: 1, start: w, end: w, lengthM: 10, roughness: 0.1, status: "optimal")
        }
        let problems = RideBudget.problems(Self.draft([Fixtures.at(east: 0), Fixtures.at(east: 100)], stretches: stretches), prefix: "")
        #expect(problems.count == 1 && problems[0].contains("map tiles of 500 m") && problems[0].contains("at most 12000"), "\(problems)")
    }

    /// A 1,200 km ride (Paris–Brest–Paris) simplified to a point every 25 m, winding: within budget.
    @Test func theLongestRealRideFitsTheBudget() {
        let path = (0..<48_000).map { i in Fixtures.at(east: Double(i) * 25, north: 200 * sin(Double(i) / 40)) }
        #expect(RideBudget.problems(Self.draft(path), prefix: "") == [])
        // And the measures say what indexing does: every cell counted is one `addRides` measures.
        let short = Array(path.prefix(400))
        var listed = 0
        for step in MapEvidence.riddenSteps(of: short) {
            for k in 0..<step.pieces {
                let (a, b) = step.piece(k)
                listed += MapEvidence.grid.cells(around: a, b, within: CorroborationRule().radiusMeters).count
            }
        }
        #expect(MapEvidence.cellsMeasured(along: short, rule: CorroborationRule(), limit: .max) == listed)
    }

    /// A step across the antimeridian is 22 m, in distance and in the cells it measures.
    @Test func theAntimeridianCostsAStepItsMetres() {
        let a = Coordinate(latitude: -16.8, longitude: 179.9999), b = Coordinate(latitude: -16.8, longitude: -179.9999)
        #expect(abs(Geodesic.distance(a, b) - 21.3) < 0.5, "\(Geodesic.distance(a, b))")
        #expect(MapEvidence.cellsMeasured(along: [a, b], rule: CorroborationRule(), limit: .max) < 100)
        let mid = Geodesic.interpolate(a, b, 0.25)
        #expect(mid.longitude > 179.99 && mid.longitude <= 180)
        #expect(abs(Geodesic.interpolate(a, b, 0.75).longitude + 179.99995) < 1e-9)
        // Its rides are counted along those metres: a handful of cells, not a row round the world.
        var evidence = MapEvidence()
        evidence.addRides(of: [a, b], rule: CorroborationRule())
        #expect((1...20).contains(evidence.passes.count), "\(evidence.passes.count) cells")
        #expect(RideBudget.problems(Self.draft([a, b]), prefix: "") == [])
    }

    /// Boxes are bounded by the tiles they span, not only by area: a thin box round the world
    /// is a small area and 80,000 tiles.
    @Test func boxesAreCountedInTiles() {
        let thin = BoundingBox(west: -180, south: -0.0001, east: 180, north: 0.0001)
        #expect(thin.squareKm < 10_000)
        #expect(MapTiles.tileCount(in: thin, limit: HubLimits.maxTilesPerBox) > HubLimits.maxTilesPerBox)
        let city = BoundingBox(west: 13.2, south: 52.4, east: 13.6, north: 52.6)
        #expect(MapTiles.tileCount(in: city, limit: .max) == MapTiles.tiles(in: city).count)
    }
}

/// Route searches at once are bounded, and the rest beyond the queue answered at once.
@Suite(.ownThreads) struct SearchGateTests {
    @Test(.timeLimitOnceRunning(.minutes(1))) func aFullGateAnswersBusyAtOnceAndHandsOverInOrder() async throws {
        let gate = SearchGate(running: 1, waiting: 1)
        let (release, releaser) = AsyncStream.makeStream(of: Void.self)
        let (started, starter) = AsyncStream.makeStream(of: Int.self)
        let first = Task {
            try await gate.enter {
                starter.yield(1)
                for await _ in release { break }
                return 1
            }
        }
        var order = started.makeAsyncIterator()
        #expect(await order.next() == 1)
        let second = Task {
            try await gate.enter { () async -> Int in
                starter.yield(2); return 2
            }
        }
        // The second waits in the queue; then a third finds both taken and is answered nil at once.
        while gate.queued < 1 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(try await gate.enter { 3 } == nil)
        releaser.yield()
        #expect(try await first.value == 1)
        #expect(try await second.value == 2)
        #expect(await order.next() == 2)
        // Free again: the next runs at once.
        #expect(try await gate.enter { 4 } == 4)
    }
}

/// A route whose ends join the network at one point is still a LineString (RFC 7946
/// §3.1.4): drawn from the origin by the access legs, never a one-position line.
@Suite(.ownThreads) struct ZeroLengthRouteTests {
    @Test func aRouteJoinedAtOnePointIsAValidLineString() throws {
        let link = NetworkLink(
            id: 7, key: LinkKey(1, 2), from: Fixtures.at(east: 0), to: Fixtures.at(east: 10), trips: 2, riders: 2, lastDay: nil,
            ratings: [2, 0, 0, 0], obstacles: LinkObstacles())
        let point = JoiningPoint(on: link, nearest: Fixtures.at(east: 4))
        let route = Route(
            JoinedPath(start: point, leaves: nil, links: [], end: point), from: Fixtures.at(east: 4), to: Fixtures.at(east: 4),
            rule: RouteRule())
        #expect(route.pieces.isEmpty && route.path.count == 1 && route.lengthMeters == 0)
        let json =
            try JSONSerialization.jsonObject(with: try Route.geoJSON([route], spots: [], radiusMeters: 15).encoded()) as? [String: Any]
        let geometry = ((json?["features"] as? [[String: Any]])?.first?["geometry"]) as? [String: Any]
        #expect(geometry?["type"] as? String == "LineString")
        #expect((geometry?["coordinates"] as? [[Double]])?.count == 3)
    }

    /// Ends either side of ±180°: said as such, never a search box the world's width.
    @Test func routesAcrossTheAntimeridianAreRefusedAsSuch() {
        guard case .failure(let refusal) = RouteQuery.parse(from: "-16.8,179.9999", to: "-16.8,-179.9999", k: "3") else {
            Issue.record("a route across the antimeridian was searched")
            return
        }
        #expect(refusal.code == "across-antimeridian")
        if case .failure(let r) = RouteQuery.parse(from: "-16.8,179.9", to: "-16.7,179.95", k: "3") { Issue.record("\(r.code)") }
    }
}
