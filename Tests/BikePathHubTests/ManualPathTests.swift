import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// Manual paths (BBP R3–R4) made on central London's real streets (`RealExtract`, read with
/// osmium): named street by street, the path rides them in order from the start to the end,
/// a typo finds its street, and what cannot be made says why. The extract's own geometry:
/// Aldersgate Street runs north into Goswell Road, which meets Old Street's west end.
@Suite(.ownThreads, .enabled(if: RealExtract.available))
struct ManualPathTests {
    static let extract = Result { try OSMImport.read(path: RealExtract.central).edges }
    /// On Aldersgate Street's northbound carriageway near Long Lane, and on Old Street 150 m
    /// east of Goswell Road (positions between the extract's nodes).
    static let onAldersgate = Coordinate(latitude: 51.51900, longitude: -0.09705)
    static let onOldStreet = Coordinate(latitude: 51.52410, longitude: -0.09625)

    @Test func aPathNamedStreetByStreetRidesThemInOrderFromStartToEnd() throws {
        let edges = try Self.extract.get()
        let pieces = try ManualPath.make(
            from: Self.onAldersgate, to: Self.onOldStreet, streets: ["Aldersgate Street", "Goswell Road", "Old Street"], on: edges)
        let byKey = Dictionary(edges.map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        let names = pieces.map { byKey[$0.key]?.name ?? "?" }.reduce(into: [String]()) { if $0.last != $1 { $0.append($1) } }
        #expect(names == ["Aldersgate Street", "Goswell Road", "Old Street"], "\(names)")
        // Continuous: each piece leaves from the node the one before arrived at.
        for (a, b) in zip(pieces, pieces.dropFirst()) {
            let arrived = a.way == .forward ? a.key.to : a.key.from, left = b.way == .forward ? b.key.from : b.key.to
            #expect(arrived == left, "\(a.key) then \(b.key)")
        }
        // It starts and ends where asked (each end is a few metres off its street).
        let first = try #require(pieces.first), last = try #require(pieces.last)
        let begins = Self.point(try #require(byKey[first.key]), at: first.fromMeters)
        let ends = Self.point(try #require(byKey[last.key]), at: last.toMeters)
        #expect(Geodesic.distance(begins, Self.onAldersgate) < 15 && Geodesic.distance(ends, Self.onOldStreet) < 15)
        // 575 m as the crow flies; along the streets ~660 m, no detour.
        let meters = pieces.reduce(0) { $0 + $1.lengthMeters }
        #expect(meters > 575 && meters < 800, "\(meters) m")
        #expect(pieces.allSatisfy { $0.fraction > 0 && $0.fraction <= 1 })

        // Typed as a rider types: case, abbreviations and a typo find the same path.
        let typed = try ManualPath.make(
            from: Self.onAldersgate, to: Self.onOldStreet, streets: ["aldersgate st", "Goswel Road", "old street"], on: edges)
        #expect(typed == pieces)
    }

    /// The point `meters` along `edge` from its first point.
    static func point(_ edge: StreetEdge, at meters: Double) -> Coordinate {
        var left = meters
        for (a, b) in zip(edge.points, edge.points.dropFirst()) {
            let d = Geodesic.distance(a, b)
            if left <= d { return Geodesic.interpolate(a, b, d > 0 ? left / d : 0) }
            left -= d
        }
        return edge.points[edge.points.count - 1]
    }

    @Test func whatCannotBeMadeSaysWhy() throws {
        let edges = try Self.extract.get()
        func error(_ names: [String], from: Coordinate = Self.onAldersgate, to: Coordinate = Self.onOldStreet) -> ManualPathError? {
            do {
                _ = try ManualPath.make(from: from, to: to, streets: names, on: edges)
                return nil
            } catch { return error }
        }
        #expect(error([]) == .streetCount(0))
        #expect(error(Array(repeating: "Old Street", count: 21)) == .streetCount(21))
        #expect(error(["Aldersgate Street", "Nowhere Lane", "Old Street"]) == .unknownStreet(index: 1, name: "Nowhere Lane"))
        // Aldersgate Street and Old Street never meet: the street between is missing.
        let skipped = error(["Aldersgate Street", "Old Street"])
        #expect(skipped == .notJoined(first: "Aldersgate Street", second: "Old Street"))
        #expect(skipped?.description.contains("do not meet") == true)
        // A start on Old Street is not on Aldersgate Street.
        guard case .startNotOnStreet(let name, let meters?) = error(["Aldersgate Street", "Old Street"], from: Self.onOldStreet) else {
            Issue.record("a start off its street must be refused")
            return
        }
        #expect(name == "Aldersgate Street" && meters > ManualPath.reachMeters)
        guard case .endNotOnStreet(let last, _) = error(["Aldersgate Street", "Goswell Road"]) else {
            Issue.record("an end off the last street must be refused")
            return
        }
        #expect(last == "Goswell Road")
    }

    /// A one-way street and a longer two-way way round, both "High Street": the path keeps to
    /// the one-way's direction while the way round exists, and rides against it when nothing
    /// else leads there.
    @Test func oneWaysAreKeptWhileAWayAlongThemExists() throws {
        func at(_ north: Double, _ east: Double) -> Coordinate {
            Coordinate(latitude: 51.5 + north / 111_320, longitude: east / (111_320 * cos(51.5 * .pi / 180)))
        }
        func edge(_ way: Int64, _ from: Int64, _ to: Int64, _ points: [Coordinate], _ direction: StreetRules.Direction) -> StreetEdge {
            StreetEdge(
                key: .init(way: way, from: from, to: to), points: points, lengthMeters: 0, highway: "residential",
                name: "High Street", direction: direction)
        }
        let oneWay = edge(1, 1, 2, [at(0, 0), at(100, 0)], .forward)
        let round = [edge(2, 2, 3, [at(100, 0), at(100, 100)], .both), edge(3, 3, 1, [at(100, 100), at(0, 100), at(0, 0)], .both)]
        // From near node 2 to near node 1: against the one-way 100 m, or round 300 m lawfully.
        let lawful = try ManualPath.make(from: at(95, 0), to: at(5, 0), streets: ["High Street"], on: [oneWay] + round)
        #expect(lawful.map(\.key.way) == [1, 2, 3, 1] && lawful.allSatisfy { $0.way == .forward }, "\(lawful)")
        let against = try ManualPath.make(from: at(95, 0), to: at(5, 0), streets: ["High Street"], on: [oneWay])
        #expect(against.count == 1 && against[0].way == .backward && abs(against[0].lengthMeters - 90) < 1, "\(against)")
    }
}
