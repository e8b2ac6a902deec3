import BikePathAPI
import BikePathCore
import Foundation
import Testing

@testable import BikePathHub

/// A confirmed ride's evidence on streets drawn here (`StreetRides`): each edge it rode gets
/// the trip once per direction with the rating and roughness of the stretch it rode it in;
/// a crossing street it only touched at the junction gets nothing.
@Suite(.ownThreads) struct StreetRidesTests {
    /// An east–west street of two edges (way 1: nodes 1–2–3, 0 to 1,000 m east) and a street
    /// crossing it northward at 500 m (way 2: nodes 2–4).
    static let streets = [
        edge(1, 1, 2, [(0, 0), (500, 0)]), edge(1, 2, 3, [(500, 0), (1_000, 0)]), edge(2, 2, 4, [(500, 0), (500, 300)]),
    ]
    static let graph = StreetGraph(edges: streets)

    static func edge(_ way: Int64, _ from: Int64, _ to: Int64, _ points: [(Double, Double)]) -> StreetEdge {
        let points = points.map { Fixtures.at(east: $0.0, north: $0.1) }
        let length = zip(points, points.dropFirst()).reduce(0) { $0 + Geodesic.distance($1.0, $1.1) }
        return StreetEdge(key: .init(way: way, from: from, to: to), points: points, lengthMeters: length, highway: "residential")
    }

    /// `Fixtures.confirmation`'s ride east over 900 m rated `status`, by `device`, or its path reversed.
    static func ride(_ device: String, status: String, westward: Bool = false) throws -> RiddenPath {
        var upload = Fixtures.confirmation(id: "C-\(device)", meters: 900, status: status)
        if westward { upload.draft.path.reverse() }
        return try #require(RiddenPath(device: device, upload))
    }

    @Test func aRideRatesEachEdgeItRodeOnceWithItsWayAndNotTheCrossingStreet() throws {
        let east = StreetRides.increments(try Self.ride("rider-a", status: "medium"), on: Self.graph)
        #expect(east.map(\.key) == [Self.streets[0].key, Self.streets[1].key], "\(east.map(\.key))")
        #expect(east.allSatisfy { $0.way == .forward })
        for i in east {
            #expect(i.evidence.rides.trips == 1 && i.evidence.rides.devices == ["rider-a"])
            #expect(i.evidence.rides.ratings == [0, 1, 0, 0], "medium, from the stretch the edge was ridden in")
            #expect(i.evidence.roughnessSum == 0.1 && i.evidence.roughnessTrips == 1)
        }
        let west = StreetRides.increments(try Self.ride("rider-b", status: "optimal", westward: true), on: Self.graph)
        #expect(Set(west.map(\.key)) == Set(east.map(\.key)) && west.allSatisfy { $0.way == .backward })
    }

    @Test func ridesSumPerEdgeAndWayWithTheirRiders() throws {
        let rides = try [
            Self.ride("rider-a", status: "medium"), Self.ride("rider-b", status: "medium"), Self.ride("rider-b", status: "optimal"),
            Self.ride("rider-c", status: "sufficient", westward: true),
        ]
        let summed = StreetRides.summed(rides.flatMap { StreetRides.increments($0, on: Self.graph) })
        #expect(summed.map(\.way) == [.backward, .forward, .backward, .forward], "by key, then way")
        for i in summed where i.way == .forward {
            #expect(i.evidence.rides.trips == 3 && i.evidence.rides.devices == ["rider-a", "rider-b"])
            #expect(i.evidence.rides.ratings == [1, 2, 0, 0] && i.evidence.roughnessTrips == 3)
        }
        for i in summed where i.way == .backward {
            #expect(i.evidence.rides.trips == 1 && i.evidence.rides.devices == ["rider-c"] && i.evidence.rides.ratings == [0, 0, 1, 0])
        }
    }

    /// A street one rider rode stays as its tags say; two riders make its pieces carry their
    /// status and riders, which `RouteRule.cost` then takes over the tags.
    @Test func aStreetPieceCarriesTheRidersEvidenceOnlyOnceItIsPublic() {
        let street = Self.streets[0]
        func piece(_ riders: Int) -> NetworkLink {
            let tally = StreetTally(trips: riders, riders: riders, lastDay: nil, ratings: [0, 0, 0, riders], roughness: nil)
            return StreetLinks.links(community: [], streets: [street], evidence: [street.key: tally])[0]
        }
        let rule = RouteRule()
        #expect(piece(1).riders == 0 && piece(1).status == nil)
        #expect(abs(rule.cost(piece(1)) - street.lengthMeters * rule.streetFactor(street)) < 1e-6)
        #expect(piece(2).riders == 2 && piece(2).status == .requiresMaintenance)
        #expect(abs(rule.cost(piece(2)) - street.lengthMeters * rule.statusFactors[3]) < 1e-6)
    }
}
