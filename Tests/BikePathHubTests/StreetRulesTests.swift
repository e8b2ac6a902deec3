import BikePathCore
import BikePathTestSupport
import Testing

@testable import BikePathHub

/// The street rules (`StreetRules`) and the noding (`StreetNoding`) on small hand-made
/// extracts, read as osmium's OPL through `StreetExtract.Builder`.
@Suite(.ownThreads) struct StreetRulesTests {
    static func extract(_ lines: [String]) throws -> StreetExtract {
        var builder = StreetExtract.Builder()
        for line in lines { try builder.add(line: line[...]) }
        return builder.finish()
    }

    /// A way `w<id>` with `tags` along nodes 1, 2, 3 … at 0.001° steps of longitude.
    static func way(_ id: Int, _ tags: String, nodes: [Int]) -> String {
        "w\(id) T\(tags) N" + nodes.map { "n\($0)x\(Double($0) * 0.001)y51.5" }.joined(separator: ",")
    }

    @Test(arguments: [
        ("highway=residential", true), ("highway=cycleway", true), ("highway=track", true), ("highway=path", true),
        ("highway=footway", false), ("highway=footway,bicycle=yes", true), ("highway=pedestrian,bicycle=designated", true),
        ("highway=pedestrian", false), ("highway=motorway", false), ("highway=trunk", false), ("highway=trunk,bicycle=yes", true),
        ("highway=residential,access=private", false), ("highway=service,access=no", false),
        ("highway=service,access=no,bicycle=yes", true), ("highway=primary,bicycle=no", false),
        ("highway=primary,bicycle=use_sidepath", false), ("highway=residential,vehicle=no", false),
        ("highway=proposed,bicycle=yes", false), ("highway=pedestrian,area=yes,bicycle=yes", false), ("building=yes", false),
    ])
    func aBicycleMayUseAWayByItsClassAndAccess(_ tags: String, _ kept: Bool) throws {
        let edges = try Self.extract([Self.way(1, tags, nodes: [1, 2])]).edges
        #expect(edges.count == (kept ? 1 : 0))
    }

    @Test(arguments: [
        ("highway=residential", StreetRules.Direction.both),
        ("highway=residential,oneway=yes", .forward),
        ("highway=residential,oneway=-1", .backward),
        ("highway=residential,oneway=no", .both),
        ("highway=primary,junction=roundabout", .forward),
        ("highway=primary,junction=roundabout,oneway=no", .both),
        ("highway=residential,oneway=yes,oneway:bicycle=no", .both),
        ("highway=residential,oneway=yes,cycleway=opposite", .both),
        ("highway=residential,oneway=yes,cycleway:right=opposite_lane", .both),
        ("highway=cycleway,oneway:bicycle=yes", .forward),
        ("highway=residential,oneway=-1,oneway:bicycle=-1", .backward),
    ])
    func aBicycleRidesAWayInTheDirectionsItsTagsAllow(_ tags: String, _ direction: StreetRules.Direction) throws {
        let edges = try Self.extract([Self.way(1, tags, nodes: [1, 2])]).edges
        #expect(edges.map(\.direction) == [direction])
    }

    @Test func cyclewaySidesTakeTheGeneralTagUnlessASideHasItsOwn() throws {
        let edge = try #require(
            try Self.extract([Self.way(1, "highway=primary,cycleway=track,cycleway:right=lane", nodes: [1, 2])]).edges.first)
        #expect(edge.cyclewayLeft == "track" && edge.cyclewayRight == "lane")
    }

    @Test func waysAreCutAtEveryNodeTheyShareAndAtTheirEnds() throws {
        // 1-2-3-4-5 crossed at 3 by 6-3-7; the footway 5-8 is no street, so 5 stays an end only.
        let edges = try Self.extract([
            Self.way(10, "highway=residential,name=Long%20%Lane", nodes: [1, 2, 3, 4, 5]),
            Self.way(11, "highway=cycleway", nodes: [6, 3, 7]),
            Self.way(12, "highway=footway", nodes: [5, 8]),
        ]).edges
        #expect(
            edges.map(\.key) == [
                .init(way: 10, from: 1, to: 3), .init(way: 10, from: 3, to: 5), .init(way: 11, from: 6, to: 3),
                .init(way: 11, from: 3, to: 7),
            ])
        #expect(edges[0].points.count == 3 && edges[0].name == "Long Lane" && edges[0].highway == "residential")
        let (a, b, c) = (
            Coordinate(latitude: 51.5, longitude: 0.001), Coordinate(latitude: 51.5, longitude: 0.002),
            Coordinate(latitude: 51.5, longitude: 0.003)
        )
        let expected = Geodesic.distance(a, b) + Geodesic.distance(b, c)
        #expect(abs(edges[0].lengthMeters - expected) < 1e-9)
    }

    @Test func aLoopBackToItsStartKeepsAKeyForEachEdge() throws {
        // 1-2-3-4-1, joined to the rest at 1 only: one loop edge.
        let loop = try Self.extract([
            Self.way(1, "highway=service", nodes: [1, 2, 3, 4, 1]), Self.way(2, "highway=service", nodes: [1, 9]),
        ])
        .edges
        #expect(loop.map(\.key) == [.init(way: 1, from: 1, to: 1), .init(way: 2, from: 1, to: 9)])
        // Two loops from node 1 in one way: the second is split at its middle node, 5.
        let twice = try Self.extract([Self.way(1, "highway=service", nodes: [1, 2, 3, 1, 4, 5, 1])]).edges
        #expect(twice.map(\.key) == [.init(way: 1, from: 1, to: 1), .init(way: 1, from: 1, to: 5), .init(way: 1, from: 5, to: 1)])
        #expect(twice.map(\.points.count) == [4, 3, 2])
    }

    @Test func aNodeOutsideTheExtractBreaksTheWayThere() throws {
        let edges = try Self.extract(["w1 Thighway=residential Nn1x0.001y51.5,n2x0.002y51.5,n3xy,n4x0.004y51.5,n5x0.005y51.5"]).edges
        #expect(edges.map(\.key) == [.init(way: 1, from: 1, to: 2), .init(way: 1, from: 4, to: 5)])
    }

    @Test func namedPlacesAndEachNamedStreetOnceArePlaces() throws {
        let places = try Self.extract([
            "n1 Tamenity=cafe,name=Bean x-0.1 y51.5",
            "n2 Tamenity=bench x-0.1 y51.5",
            "n3 Trailway=station,name=Farringdon x-0.105 y51.52",
            "n4 Trailway=signal,name=Signal%20%9 x-0.1 y51.5",
            "w7 Tleisure=park,name=Spa%20%Fields Nn10x0.001y51.5,n11x0.002y51.5,n12x0.003y51.5",
            Self.way(21, "highway=residential,name=Long%20%Lane", nodes: [1, 2]),
            Self.way(20, "highway=residential,name=Long%20%Lane", nodes: [2, 3]),
        ]).places
        #expect(
            places == [
                Place(osmID: "n1", name: "Bean", kind: "cafe", position: Coordinate(latitude: 51.5, longitude: -0.1)),
                Place(osmID: "n3", name: "Farringdon", kind: "station", position: Coordinate(latitude: 51.52, longitude: -0.105)),
                Place(osmID: "w7", name: "Spa Fields", kind: "park", position: Coordinate(latitude: 51.5, longitude: 0.002)),
                Place(osmID: "w20", name: "Long Lane", kind: "street", position: Coordinate(latitude: 51.5, longitude: 0.003)),
            ])
    }

    @Test func aMalformedLineStopsTheExtractWithItsNumber() {
        #expect(throws: OPLReader.Error(line: 2, problem: .badTag("highway"))) {
            try Self.extract([Self.way(1, "highway=residential", nodes: [1, 2]), "w2 Thighway Nn1x0y0"])
        }
    }
}
