import BikePathAPI
import BikePathCore
@testable import BikePathHub
import BikePathTestSupport
import Foundation
import Testing

/// The community path network's rule (`PathNetwork`, docs/hub.md): riders of one street
/// share its links, a crossing joins the graph, a parallel street and a gap stay apart,
/// and the map shows edges between crossings, public only with two riders.
@Suite(.ownThreads) struct PathNetworkTests {
    /// A confirmed ride through `waypoints` (metres east, north of `Fixtures.at`'s origin),
    /// a path point every 20 m, one road-quality stretch over it all of `status`.
    static func ride(_ device: String, _ waypoints: [(Double, Double)], status: String = "optimal", day: Int64 = 0) -> ConfirmedRecord {
        var path: [[Double]] = []
        for (a, b) in zip(waypoints, waypoints.dropFirst()) {
            let length = hypot(b.0 - a.0, b.1 - a.1)
            let steps = max(1, Int(length / 20))
            for k in 0..<steps {
                let t = Double(k) / Double(steps)
                let c = Fixtures.at(east: a.0 + (b.0 - a.0) * t, north: a.1 + (b.1 - a.1) * t)
                path.append([c.latitude, c.longitude])
            }
        }
        let end = Fixtures.at(east: waypoints.last!.0, north: waypoints.last!.1)
        path.append([end.latitude, end.longitude])
        let (s, e) = (Fixtures.at(east: waypoints.first!.0, north: waypoints.first!.1), end)
        let stretch = RoadSegmentUpload(
            startOffsetS: 0, endOffsetS: 60, start: WirePosition(lat: s.latitude, lon: s.longitude),
            end: WirePosition(lat: e.latitude, lon: e.longitude), lengthM: 100, roughness: 0.1, status: status)
        let trip = TripUpload(id: "T", startUtcNs: Fixtures.start + day * 86_400_000_000_000, endUtcNs: nil, statistics: Fixtures.stats)
        let draft = DraftUpload(id: "D", trip: trip, pathStatus: status, path: path, obstacles: [], roadQuality: [stretch])
        let body = try! WireJSON.encode(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))
        return ConfirmedRecord(device: device, body: body)
    }

    /// Nodes reachable from `start` over the network's links.
    static func reachable(_ network: PathNetwork, from start: Int64) -> Set<Int64> {
        var adjacent: [Int64: [Int64]] = [:]
        for key in network.links.keys { adjacent[key.from, default: []].append(key.to); adjacent[key.to, default: []].append(key.from) }
        var seen: Set<Int64> = [start], frontier = [start]
        while let n = frontier.popLast() { for m in adjacent[n] ?? [] where seen.insert(m).inserted { frontier.append(m) } }
        return seen
    }

    static func nearestNode(_ network: PathNetwork, east: Double, north: Double) -> Int64 {
        let p = Fixtures.at(east: east, north: north)
        return network.nodes.min { Geodesic.distance($0.value, p) < Geodesic.distance($1.value, p) }!.key
    }

    @Test func ridersOfOneStreetShareItsLinks() {
        // The second rider rides 6 m north of the first (GNSS), the third 40 m north: another street.
        let network = PathNetwork.build([
            Self.ride("a", [(0, 0), (500, 0)]), Self.ride("b", [(0, 6), (500, 6)]),
            Self.ride("c", [(0, 40), (500, 40)]),
        ])
        let shared = network.links.values.filter { $0.devices == ["a", "b"] }
        #expect(shared.count >= 35, "the first two riders share the street: \(shared.count) links")
        #expect(!network.links.values.contains { $0.devices.contains("c") && $0.devices.count > 1 }, "the street 40 m away shares nothing")
        let alone = network.links.values.filter { $0.devices == ["a"] || $0.devices == ["b"] }
        #expect(alone.count <= 2, "at most the ends differ: \(alone.count) links of one rider")
        #expect(
            !Self.reachable(network, from: Self.nearestNode(network, east: 0, north: 0)).contains(
                Self.nearestNode(network, east: 0, north: 40)))
    }

    @Test func aCrossingJoinsTheGraphAndSplitsTheEdges() {
        // An east–west street ridden by two riders, a north–south one crossing it at 250 m by two others.
        let network = PathNetwork.build([
            Self.ride("a", [(0, 0), (500, 0)]), Self.ride("b", [(0, 3), (500, 3)]),
            Self.ride("c", [(250, -250), (250, 250)]), Self.ride("d", [(252, -250), (252, 250)]),
        ])
        let west = Self.nearestNode(network, east: 0, north: 0), north = Self.nearestNode(network, east: 250, north: 250)
        #expect(Self.reachable(network, from: west).contains(north), "the crossing joins the streets")
        let links = network.links.map { key, e in
            NetworkLink(
                id: key.from * 100_000 + key.to, key: key, from: network.nodes[key.from]!, to: network.nodes[key.to]!,
                trips: e.trips, riders: e.devices.count, lastDay: e.lastDay, ratings: e.ratings, obstacles: LinkObstacles())
        }
        let edges = NetworkEdge.edges(of: links, minRiders: 2)
        // Four arms from the crossing (the snapped crossing may add a short stub or two).
        let long = edges.filter { $0.lengthMeters > 150 }
        #expect(long.count == 4, "four arms of ~250 m: \(edges.map { Int($0.lengthMeters) })")
        #expect(long.allSatisfy { $0.riders == 2 && $0.status == .optimal })
        #expect(abs(edges.map(\.lengthMeters).reduce(0, +) - 1_000) < 40, "the edges cover the two streets once")
    }

    /// `/v1/map/network` is written by `CanonicalJSONEncoder` for speed; its bytes must stay
    /// `WireJSON.encode`'s (Foundation's `JSONEncoder`), over seeded awkward edges.
    @Test func theNetworkAnswerHasJSONEncodersBytes() throws {
        var g = SplitMix64(state: 7)
        func unit() -> Double { Double(g.next() >> 11) / Double(1 << 53) }
        let statuses: [PathStatus?] = [nil] + PathStatus.allCases
        let edges = (0..<300).map { i in
            NetworkEdge(
                path: (0..<(2 + Int(g.next() % 6))).map { _ in Coordinate(latitude: unit() * 180 - 90, longitude: unit() * 360 - 180) },
                lengthMeters: [0, -0.0, 0.04, 1e7, unit() * 5_000][i % 5], status: statuses[i % statuses.count],
                riders: Int(g.next() % 50), obstacles: Int(g.next() % 4), lastDay: i % 3 == 0 ? nil : Int(g.next() % 40_000))
        }
        #expect(try NetworkEdge.geoJSONData(edges) == WireJSON.encode(NetworkEdge.geoJSON(edges)))
        #expect(try NetworkEdge.geoJSONData([]) == WireJSON.encode(NetworkEdge.geoJSON([])))
    }

    @Test func aGapIsNotRidden() {
        // A 3 km straight stretch without a point (a privacy zone, a lost fix) is no link.
        let network = PathNetwork.build([ConfirmedRecord(device: "a", body: Self.gapRide())])
        #expect(network.links.count > 8, "both ridden ends are links")
        #expect(
            !Self.reachable(network, from: Self.nearestNode(network, east: 0, north: 0)).contains(
                Self.nearestNode(network, east: 3_200, north: 0)),
            "no link spans the gap")
    }

    static func gapRide() -> Data {
        let points = [0.0, 20, 40, 60, 80, 100, 3_100, 3_120, 3_140, 3_160, 3_180, 3_200].map { Fixtures.at(east: $0) }
        let trip = TripUpload(id: "T", startUtcNs: Fixtures.start, endUtcNs: nil, statistics: Fixtures.stats)
        let draft = DraftUpload(
            id: "D", trip: trip, pathStatus: nil, path: points.map { [$0.latitude, $0.longitude] }, obstacles: [], roadQuality: [])
        return try! WireJSON.encode(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))
    }

    @Test func aLinksStatusIsTheMedianRatingAndAnObstacleCondemnsIt() {
        var link = NetworkLink(
            id: 1, key: LinkKey(1, 2), from: Fixtures.at(east: 0), to: Fixtures.at(east: 10), trips: 5, riders: 3,
            lastDay: nil, ratings: [3, 1, 0, 1], obstacles: LinkObstacles())
        #expect(link.status == .optimal, "3 of 5 trips rated it optimal")
        link.ratings = [1, 1, 0, 3]
        #expect(link.status == .requiresMaintenance)
        link.ratings = [0, 0, 0, 0]
        #expect(link.status == nil, "no rating: unknown")
        link.obstacles = LinkObstacles(count: 1, confidence: 0.8)
        #expect(link.status == .requiresMaintenance)
    }

    @Test func oneRidersLinksAreNotPublic() {
        let network = PathNetwork.build([Self.ride("a", [(0, 0), (300, 0)]), Self.ride("a", [(0, 2), (300, 2)], day: 1)])
        let links = network.links.map { key, e in
            NetworkLink(
                id: key.from * 100_000 + key.to, key: key, from: network.nodes[key.from]!, to: network.nodes[key.to]!,
                trips: e.trips, riders: e.devices.count, lastDay: e.lastDay, ratings: e.ratings, obstacles: LinkObstacles())
        }
        #expect(links.contains { $0.trips == 2 }, "the rider rode it twice")
        #expect(NetworkEdge.edges(of: links, minRiders: 2).isEmpty, "one rider's rides, however many, are never shown")
    }

    @Test func anObstacleBelongsToItsNearestLinkWithinTheRadius() {
        let links = [
            NetworkLink(
                id: 1, key: LinkKey(1, 2), from: Fixtures.at(east: 0), to: Fixtures.at(east: 20), trips: 2, riders: 2,
                lastDay: nil, ratings: [2, 0, 0, 0], obstacles: LinkObstacles()),
            NetworkLink(
                id: 2, key: LinkKey(2, 3), from: Fixtures.at(east: 20), to: Fixtures.at(east: 40), trips: 2, riders: 2,
                lastDay: nil, ratings: [2, 0, 0, 0], obstacles: LinkObstacles()),
        ]
        func spot(east: Double, north: Double, corroborated: Bool = true) -> ReportedObstacle {
            ReportedObstacle(
                position: Fixtures.at(east: east, north: north), kind: "pothole", riders: 2, reportingTrips: 2,
                passesWithoutReport: 0, confidence: 0.75, corroborated: corroborated, firstDay: nil, lastDay: nil)
        }
        let assigned = LinkObstacles.assign(
            [spot(east: 30, north: 4), spot(east: 5, north: 30), spot(east: 10, north: 1, corroborated: false)],
            to: links, radiusMeters: 15)
        #expect(assigned == [2: LinkObstacles(count: 1, confidence: 0.75)], "one on link 2; one 30 m off and one not corroborated on none")
    }
}

/// The bucketed search for a stretch end's nearest path point finds exactly the point a scan
/// of the whole path finds (ties to the lowest index), on paths that loop, sit near a pole or
/// repeat points, and for positions on, near and far from them.
@Suite(.ownThreads) struct NearestPathPointTests {
    static func scan(_ p: Coordinate, _ path: [Coordinate]) -> Int? {
        let scale = cos(p.latitude * .pi / 180)
        func d2(_ c: Coordinate) -> Double {
            let (dy, dx) = (c.latitude - p.latitude, (c.longitude - p.longitude) * scale)
            return dx * dx + dy * dy
        }
        return path.indices.min { (d2(path[$0]), $0) < (d2(path[$1]), $1) }
    }

    @Test func findsWhatAScanFinds() {
        var rng = SplitMix64(state: 40)
        for trial in 0..<300 {
            let latitude = [51.5, 0.0, -33.9, 84.9, -84.9][trial % 5]
            var path: [Coordinate] = []
            var here = Coordinate(latitude: latitude, longitude: Double.random(in: -179...179, using: &rng))
            for _ in 0..<Int.random(in: 1...400, using: &rng) {
                // Steps of up to ~300 m, sometimes back over the same ground, sometimes a repeat.
                if Bool.random(using: &rng), let back = path.randomElement(using: &rng) { here = back }
                here = Coordinate(
                    latitude: here.latitude + Double.random(in: -0.003...0.003, using: &rng),
                    longitude: here.longitude + Double.random(in: -0.003...0.003, using: &rng))
                path.append(here)
            }
            let index = NearestPathPoint(path)
            for _ in 0..<20 {
                let anchor = path.randomElement(using: &rng)!
                let reach = [0.0, 0.0001, 0.002, 0.05, 1][Int.random(in: 0..<5, using: &rng)]
                let p = Coordinate(
                    latitude: anchor.latitude + Double.random(in: -reach...reach, using: &rng),
                    longitude: anchor.longitude + Double.random(in: -reach...reach, using: &rng))
                #expect(index.nearest(p) == Self.scan(p, path), "trial \(trial): \(p)")
            }
        }
        #expect(NearestPathPoint([]).nearest(Coordinate(latitude: 0, longitude: 0)) == nil)
    }
}
