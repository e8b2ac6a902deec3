import BikePathCore
import Foundation
import Testing

@testable import BikePathHub

/// The matcher on a few streets drawn here, for what the real streets cannot show on
/// purpose: bad input, a stretch off every street, a one-way.
@Suite(.ownThreads) struct StreetMatcherTests {
    static let origin = Coordinate(latitude: 51.52, longitude: -0.10)

    /// The point `east` and `north` metres from `origin`.
    static func at(_ east: Double, _ north: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + north / 111_250, longitude: origin.longitude + east / (111_250 * cos(origin.latitude * .pi / 180)))
    }

    static func edge(_ way: Int64, _ from: Int64, _ to: Int64, _ points: [Coordinate], _ direction: StreetRules.Direction = .both)
        -> StreetEdge
    {
        let length = zip(points, points.dropFirst()).reduce(0) { $0 + Geodesic.distance($1.0, $1.1) }
        return StreetEdge(
            key: .init(way: way, from: from, to: to), points: points, lengthMeters: length, highway: "residential", direction: direction)
    }

    /// A street 1 km east from the origin in two edges (way 1: nodes 1–2–3), and a one-way
    /// street 100 m north of it (way 2, nodes 4–5, eastward only), joined at their west ends by way 3.
    static let streets = [
        edge(1, 1, 2, [at(0, 0), at(500, 0)]), edge(1, 2, 3, [at(500, 0), at(1000, 0)]),
        edge(2, 4, 5, [at(0, 100), at(1000, 100)], .forward), edge(3, 1, 4, [at(0, 0), at(0, 100)]),
    ]
    static let matcher = StreetMatcher(graph: StreetGraph(edges: streets))

    /// Fixes every 5 m along `points`' straight line from the first to the last, a second apart, starting at `start` s.
    static func fixes(from a: (Double, Double), to b: (Double, Double), start: Double = 0) -> [MatchFix] {
        let length = ((b.0 - a.0) * (b.0 - a.0) + (b.1 - a.1) * (b.1 - a.1)).squareRoot()
        return stride(from: 0.0, through: length, by: 5).enumerated().map { i, d in
            let t = d / length
            return MatchFix(position: at(a.0 + (b.0 - a.0) * t, a.1 + (b.1 - a.1) * t), time: SampleTime(seconds: start + Double(i)))
        }
    }

    @Test func aRideAlongAStreetIsMatchedToItsEdgesInOrder() throws {
        let match = try Self.matcher.match(Self.fixes(from: (100, 3), to: (900, -3)))
        #expect(match.unmatched.isEmpty)
        let pieces = try #require(match.runs.first?.pieces)
        #expect(match.runs.count == 1 && pieces.map(\.key) == [Self.streets[0].key, Self.streets[1].key])
        #expect(pieces.allSatisfy { $0.way == .forward })
        // From a fifth along the first edge to its end, then four fifths of the second.
        let lengths = Self.streets.map(\.lengthMeters)
        #expect(abs(pieces[0].fromMeters - lengths[0] / 5) < 1 && pieces[0].toMeters == lengths[0] && abs(pieces[0].fraction - 0.8) < 0.01)
        #expect(
            pieces[1].fromMeters == 0 && abs(pieces[1].toMeters - lengths[1] * 0.8) < 1 && abs(pieces[1].fraction - 0.8) < 0.01, "\(pieces)"
        )
    }

    @Test func aRideWestwardIsMatchedBackwardAndNeverAgainstAOneWay() throws {
        let back = try Self.matcher.match(Self.fixes(from: (900, 0), to: (100, 0)))
        #expect(back.runs.flatMap(\.pieces).map(\.way) == [.backward, .backward])
        // Westward 100 m north: only the one-way is there, and a bicycle may not ride it west.
        let against = try Self.matcher.match(Self.fixes(from: (900, 100), to: (100, 100)))
        #expect(against.runs.isEmpty && against.unmatched == [0...(Self.fixes(from: (900, 100), to: (100, 100)).count - 1)])
        let along = try Self.matcher.match(Self.fixes(from: (100, 100), to: (900, 100)))
        #expect(along.runs.flatMap(\.pieces).map(\.key) == [Self.streets[2].key])
    }

    /// A side street leaves the junction at 500 m; the fixes passing the junction drift 15 m
    /// into it (nearer to it than to the street ridden). Its candidate is no short
    /// there-and-back: a state is one way along a street, and turning back on it pays a U-turn.
    @Test func aFixDriftingIntoASideStreetAtAJunctionLaysNoThereAndBack() throws {
        let side = Self.edge(4, 2, 6, [Self.at(500, 0), Self.at(500, 80)])
        let matcher = StreetMatcher(graph: StreetGraph(edges: Self.streets + [side]))
        var fixes = Self.fixes(from: (100, 0), to: (900, 0))
        for i in fixes.indices where Geodesic.distance(fixes[i].position, Self.at(500, 0)) <= 10 {
            fixes[i].position = Self.at(500, 15)
        }
        let match = try matcher.match(fixes)
        #expect(match.runs.flatMap(\.pieces).map(\.key) == [Self.streets[0].key, Self.streets[1].key], "\(match.runs)")
    }

    /// Off the street for 300 m (200 m south of it: no street within 50 m), then back on it:
    /// two runs, and the fixes between unmatched.
    @Test func fixesOffEveryStreetStayUnmatchedBetweenTwoRuns() throws {
        let on = Self.fixes(from: (0, 0), to: (300, 0))
        let off = Self.fixes(from: (300, -200), to: (600, -200), start: 100)
        let again = Self.fixes(from: (600, 0), to: (900, 0), start: 200)
        let match = try Self.matcher.match(on + off + again)
        #expect(match.runs.map(\.fixes) == [0...(on.count - 1), (on.count + off.count)...(on.count + off.count + again.count - 1)])
        #expect(match.unmatched == [on.count...(on.count + off.count - 1)])
        #expect(match.runs[1].pieces.map(\.key) == [Self.streets[1].key])
    }

    @Test func emptyOneFixAndFarAwayRidesMatchNothing() throws {
        let empty = try Self.matcher.match([])
        #expect(empty.runs.isEmpty && empty.unmatched.isEmpty)
        let one = try Self.matcher.match([MatchFix(position: Self.at(100, 0), time: SampleTime(seconds: 0))])
        #expect(one.runs.isEmpty && one.unmatched == [0...0])
        let far = try Self.matcher.match(Self.fixes(from: (0, 5_000), to: (500, 5_000)))
        #expect(far.runs.isEmpty && far.unmatched == [0...100])
        let none = try StreetMatcher(graph: StreetGraph(edges: [])).match(Self.fixes(from: (0, 0), to: (100, 0)))
        #expect(none.runs.isEmpty && none.unmatched == [0...20])
    }

    @Test func aFixWithoutAValidPositionOrOutOfTimeOrderIsRefused() {
        var fixes = Self.fixes(from: (0, 0), to: (100, 0))
        let good = fixes
        fixes[3].position.latitude = .nan
        #expect(throws: MatchInputError.invalidPosition(index: 3)) { try Self.matcher.match(fixes) }
        fixes = good
        fixes[5].position.longitude = 181
        #expect(throws: MatchInputError.invalidPosition(index: 5)) { try Self.matcher.match(fixes) }
        fixes = good
        fixes[7].time = SampleTime(seconds: 1)
        #expect(throws: MatchInputError.timeGoesBack(index: 7)) { try Self.matcher.match(fixes) }
        #expect("\(MatchInputError.timeGoesBack(index: 7))" == "fix 7 is earlier than fix 6: fixes must be in time order")
    }
}
