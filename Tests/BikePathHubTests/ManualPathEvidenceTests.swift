import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// A manual path counted as its rider's rating (`StreetRides.increments(path:)`), on central
/// London's real streets (`RealExtract`): the rule a matched ride's pieces go through, so the
/// same pieces count whether a ride or a path brought them.
@Suite(.ownThreads, .enabled(if: RealExtract.available))
struct ManualPathEvidenceTests {
    @Test func aPathCountsEachPieceARideWouldCountOnceWithItsRidersStatus() throws {
        let edges = try ManualPathTests.extract.get()
        let pieces = try ManualPath.make(
            from: ManualPathTests.onAldersgate, to: ManualPathTests.onOldStreet, streets: ManualPathEndpointTests.named, on: edges)
        let increments = StreetRides.increments(path: pieces, device: "rider-a", day: 20_000, status: .sufficient)
        let thinning = MatchParameters().thinning
        // Counted: every piece but those under 2σ covering under half their edge.
        let kept = pieces.filter { $0.lengthMeters >= thinning || $0.fraction >= 0.5 }
        #expect(increments.map(\.key) == kept.map(\.key) && increments.map(\.way) == kept.map(\.way))
        for i in increments {
            #expect(i.evidence.rides.trips == 1 && i.evidence.rides.devices == ["rider-a"] && i.evidence.rides.lastDay == 20_000)
            #expect(i.evidence.rides.ratings == [0, 0, 1, 0], "\(i.key): \(i.evidence.rides.ratings)")
            #expect(i.evidence.roughnessTrips == 0, "a path measures no roughness")
        }
        // The same piece twice (a path that rides an edge again its way) counts once, as a ride's does.
        #expect(StreetRides.increments(path: pieces + pieces, device: "rider-a", day: 20_000, status: .sufficient) == increments)
        // A piece a few metres onto a crossing street is not a rating of it.
        let stub = try #require(edges.first { $0.lengthMeters > 4 * thinning })
        let onto = StreetMatch.Piece(
            key: stub.key, way: .forward, fromMeters: 0, toMeters: thinning / 2, fraction: thinning / 2 / stub.lengthMeters)
        #expect(StreetRides.increments(path: [onto], device: "rider-a", day: nil, status: .optimal).isEmpty)
    }
}
