import BikePathCore
import BikePathFixtures
import Testing

@testable import BikePathHub

/// Routes over streets and community paths as one network (docs/hub.md, "Routes"), on
/// streets drawn here in metres east and north of `GridCity.origin`: one-way streets are
/// ridden only their way, a community path near a street joins it, the street's tags set
/// its cost, and the legs name the streets with short stretches folded.
@Suite(.ownThreads) struct StreetRouteTests {
    /// A street edge through `points` (metres east, north of `at`'s origin), its end nodes `from` and `to`.
    static func street(
        _ way: Int64, _ from: Int64, _ to: Int64, _ points: [(Double, Double)], name: String? = nil, highway: String = "residential",
        direction: StreetRules.Direction = .both, at: (Double, Double) -> Coordinate = GridCity.at
    ) -> StreetEdge {
        let coordinates = points.map { at($0.0, $0.1) }
        let length = zip(coordinates, coordinates.dropFirst()).map { Geodesic.distance($0, $1) }.reduce(0, +)
        return StreetEdge(
            key: .init(way: way, from: from, to: to), points: coordinates, lengthMeters: length, highway: highway, name: name,
            direction: direction)
    }

    /// A public community link (two riders, rated optimal) from `a` to `b` (metres east, north).
    static func path(_ id: Int64, _ a: Int64, _ pa: (Double, Double), _ b: Int64, _ pb: (Double, Double)) -> NetworkLink {
        let key = LinkKey(a, b)
        let (from, to) = key.from == a ? (pa, pb) : (pb, pa)
        return NetworkLink(
            id: id, key: key, from: GridCity.at(from.0, from.1), to: GridCity.at(to.0, to.1), trips: 2, riders: 2, lastDay: nil,
            ratings: [2, 0, 0, 0], obstacles: LinkObstacles())
    }

    static func best(_ from: (Double, Double), _ to: (Double, Double), streets: [StreetEdge], paths: [NetworkLink] = []) async throws
        -> Route
    {
        let graph = LoadedGraph(links: StreetLinks.links(community: paths, streets: streets))
        let routes = try await RouteSearch().routes(from: GridCity.at(from.0, from.1), to: GridCity.at(to.0, to.1), k: 1, on: graph)
        return try #require(routes.first)
    }

    /// A block 100 m × 100 m: its south side one-way eastward ("Oneway Street"), the others both ways.
    static let block = [
        street(1, 1, 2, [(0, 0), (50, 0), (100, 0)], name: "Oneway Street", direction: .forward),
        street(2, 2, 3, [(100, 0), (100, 100)], name: "East Street"),
        street(3, 3, 4, [(100, 100), (0, 100)], name: "North Street"),
        street(4, 4, 1, [(0, 100), (0, 0)], name: "West Street"),
    ]

    @Test func aOneWayStreetIsRiddenOnlyItsWay() async throws {
        // Eastward along it: 80 m, on it.
        let east = try await Self.best((10, 1), (90, 1), streets: Self.block)
        #expect(abs(east.lengthMeters - 80) < 1, "\(east.lengthMeters)")
        #expect(east.legs.map(\.name) == ["Oneway Street"])
        // Westward: round the other three sides (10 + 100 + 100 + 100 + 10 m), never against it.
        let west = try await Self.best((90, 1), (10, 1), streets: Self.block)
        #expect(abs(west.lengthMeters - 320) < 1, "\(west.lengthMeters)")
        #expect(west.legs.compactMap(\.name) == ["Oneway Street", "East Street", "North Street", "West Street", "Oneway Street"])
        for piece in west.pieces where piece.link.street != nil {
            #expect(piece.link.allows(leaving: piece.from < piece.to ? piece.link.key.from : piece.link.key.to), "\(piece)")
        }
    }

    /// Two streets 200 m apart joined only 1 km east; a riders' path between them ends 8 m
    /// from each, and another path lies in a park 300 m from any street.
    static let streetsApart = [
        street(10, 10, 11, [(0, 0), (1_000, 0)], name: "South Road"), street(11, 11, 12, [(1_000, 0), (1_000, 200)], name: "Link Road"),
        street(12, 12, 13, [(1_000, 200), (0, 200)], name: "North Road"),
    ]
    static let parkPath = [path(1, 1, (500, 8), 2, (500, 100)), path(2, 2, (500, 100), 3, (500, 192))]

    @Test func aCommunityPathNearAStreetJoinsItAndIsTakenWhenShorter() async throws {
        // Ends 400 m from the path (beyond `RouteRule.reachMeters`): they join the streets.
        let route = try await Self.best((100, 0), (100, 200), streets: Self.streetsApart, paths: Self.parkPath)
        // 400 m along South Road, 8 m to the path, 184 m on it, 8 m to North Road, 400 m along it.
        #expect(abs(route.lengthMeters - 1_000) < 2, "\(route.lengthMeters)")
        #expect(route.legs.map(\.kind) == [RouteLeg.Kind.street, .community, .street], "\(route.legs)")
        #expect(route.legs.map(\.name) == ["South Road", nil, "North Road"], "\(route.legs)")
        // Joins are made only within `joinMeters`: 20 m off the street, the path stays apart.
        let apart = [Self.path(1, 1, (500, 20), 2, (500, 100)), Self.path(2, 2, (500, 100), 3, (500, 180))]
        let links = StreetLinks.links(community: apart, streets: Self.streetsApart)
        #expect(!links.contains { $0.origin == NetworkLink.Origin.join })
        let around = try await Self.best((100, 0), (100, 200), streets: Self.streetsApart, paths: apart)
        #expect(around.legs.compactMap(\.name) == ["South Road", "Link Road", "North Road"], "\(around.legs)")
    }

    @Test func aStreetCostsByItsTagsAndRidersRatingsWin() {
        let rule = RouteRule()
        func factor(_ highway: String, surface: String? = nil, smoothness: String? = nil, cycleway: String? = nil) -> Double {
            var edge = Self.street(1, 1, 2, [(0, 0), (100, 0)], highway: highway)
            (edge.surface, edge.smoothness, edge.cyclewayLeft, edge.cyclewayRight) = (surface, smoothness, cycleway, cycleway)
            return rule.streetFactor(edge)
        }
        #expect(factor("cycleway") < factor("residential") && factor("residential") < factor("secondary"))
        #expect(factor("secondary") < factor("primary"))
        #expect(factor("primary", cycleway: "track") == factor("cycleway"))
        #expect(factor("primary", cycleway: "lane") < factor("primary") && factor("primary", cycleway: "lane") > factor("cycleway"))
        #expect(factor("residential", surface: "gravel") > factor("residential"))
        #expect(factor("residential", smoothness: "bad") > factor("residential"))
        // An unrated street costs by its tags; a rated link by the riders' status, whatever the tags.
        let primary = StreetLinks.links(community: [], streets: [Self.street(1, 1, 2, [(0, 0), (100, 0)], highway: "primary")])[0]
        #expect(abs(rule.cost(primary) - primary.lengthMeters * factor("primary")) < 1e-9)
        var rated = primary
        rated.ratings = [3, 0, 0, 0]
        #expect(abs(rule.cost(rated) - rated.lengthMeters * rule.statusFactors[0]) < 1e-9)
    }

    @Test func legsNameTheStreetsAndFoldShortStretches() async throws {
        // A 3 m piece of another street between two of one name: folded, the name's legs joined.
        let streets = [
            Self.street(20, 20, 21, [(0, 0), (200, 0)], name: "Goswell Road"),
            Self.street(21, 21, 22, [(200, 0), (203, 0)], name: "Tiny Lane"),
            Self.street(22, 22, 23, [(203, 0), (400, 0)], name: "Goswell Road"),
        ]
        let route = try await Self.best((20, 0.5), (380, 12), streets: streets)
        #expect(route.legs.map(\.kind) == [RouteLeg.Kind.street, .access], "\(route.legs)")
        #expect(route.legs.first?.name == "Goswell Road" && route.legs.first?.status == "unrated" && route.legs.first?.riders == 0)
        #expect(abs((route.legs.first?.lengthMeters ?? 0) - 360) < 1, "\(route.legs)")
        // The start lies 0.5 m from the street: no access leg is listed for it; the end's 12 m is.
        #expect(abs((route.legs.last?.lengthMeters ?? 0) - 12) < 0.5)
    }
}
