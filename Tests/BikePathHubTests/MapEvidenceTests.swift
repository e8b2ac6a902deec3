import BikePathAPI
import BikePathFixtures
import BikePathHub
import Foundation
import Testing

/// The map's evidence is a sum (`MapEvidence`): kept trip by trip, in any order and any
/// grouping, it equals the evidence of every trip at once, to the last bit, and so does the
/// map read off it. This is what lets a store add one confirmation's evidence to what it
/// holds instead of recomputing its neighbourhood.
@Suite(.ownThreads) struct MapEvidenceTests {
    static let rule = CorroborationRule(), status = PathStatusRule()

    static let trips: [MapEvidence] = CitySimulation.generate(riders: 12, rides: 4, seed: 7).confirmations.compactMap { c in
        guard let upload = try? JSONDecoder().decode(ConfirmationUpload.self, from: c.body), upload.confirmed else { return nil }
        return MapEvidence.trip(c.device, upload.draft, rule: rule, pathStatus: status)
    }

    static func sum(_ parts: some Sequence<MapEvidence>) -> MapEvidence {
        parts.reduce(into: MapEvidence()) { $0.add($1) }
    }

    @Test func evidenceAddedInAnyOrderAndGroupingIsTheSame() {
        let trips = Self.trips
        #expect(trips.count == 48)
        let inOrder = Self.sum(trips)
        // Three groups summed apart (three replicas' batches), then together, backwards.
        let groups = (0..<3).map { g in Self.sum(trips.indices.filter { $0 % 3 == g }.reversed().map { trips[$0] }) }
        let grouped = Self.sum(groups.reversed())
        #expect(grouped == inOrder)
        #expect(!inOrder.passes.isEmpty && !inOrder.reports.isEmpty && !inOrder.stretches.isEmpty)
        // Not equal by accident: one trip more or less is seen.
        #expect(Self.sum(trips.dropLast()) != inOrder)
    }

    @Test func theMapKeptTripByTripIsTheMapBuiltAtOnce() {
        let city = CitySimulation.generate(riders: 12, rides: 4, seed: 7)
        let whole = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) })
        let kept = SharedMap(evidence: Self.sum(Self.trips.reversed()))
        #expect(kept.obstacles == whole.obstacles)
        #expect(kept.cells == whole.cells)
        #expect(kept.reports == whole.reports)
        #expect(whole.obstacles.contains(where: \.corroborated) && whole.obstacles.contains { $0.passesWithoutReport > 0 })
    }
}
