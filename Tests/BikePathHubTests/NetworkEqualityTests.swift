import BikePathAPI
import BikePathCore
import BikePathFixtures
@testable import BikePathHub
import BikePathTestSupport
import Foundation
import PostgresNIO
import Testing

/// The community path network kept in the database a batch at a time (`MapMaintainer`)
/// is the network built whole from every confirmation in arrival order
/// (`PathNetwork.build`), on each store; and so SQLite's equals PostgreSQL's. Each link's
/// obstacles are those of the whole map's corroborated spots nearest it.
@Suite(.ownThreads) struct NetworkEqualityTests {
    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func incrementalNetworkEqualsTheWholeNetwork(_ backend: Backend) async throws {
        let city = CitySimulation.generate(riders: 12, rides: 5, seed: 20)
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            var arrival: [ConfirmedRecord] = []
            // Three rounds, each brought up to date: later rounds snap to the nodes stored by earlier ones.
            for start in stride(from: 0, to: city.confirmations.count, by: 20) {
                var round: [(id: String, device: String, body: Data)] = []
                for i in start..<min(start + 20, city.confirmations.count) {
                    let c = city.confirmations[i]
                    round.append((String(format: "D%03d", i), c.device, c.body))
                    _ = try await store.put(device: c.device, records: [(.confirmation, round.last!.id, c.body)])
                }
                try await MapTiles.update(store)
                // The maintainer's scan queues a round in key order (device, id).
                arrival += round.sorted { ($0.device, $0.id) < ($1.device, $1.id) }.map {
                    ConfirmedRecord(device: $0.device, body: $0.body)
                }
            }
            let whole = PathNetwork.build(arrival)
            let box = BoundingBox(
                west: CitySimulation.origin.longitude - 0.05, south: CitySimulation.origin.latitude - 0.05,
                east: CitySimulation.at(4_000, 0).longitude + 0.05, north: CitySimulation.at(0, 4_000).latitude + 0.05)
            let stored = try await store.networkLinks(in: box)
            #expect(whole.links.count > 500, "the city's rides make a network to compare (\(whole.links.count) links)")
            #expect(stored.count == whole.links.count, "links: \(stored.count) stored, \(whole.links.count) whole")
            var mismatches: [String] = []
            for link in stored {
                guard let e = whole.links[link.key] else { mismatches.append("\(link.key) is not in the whole network"); continue }
                if link.trips != e.trips || link.riders != e.devices.count || link.lastDay != e.lastDay || link.ratings != e.ratings
                    || link.from != whole.nodes[link.key.from] || link.to != whole.nodes[link.key.to]
                {
                    mismatches.append(
                        "\(link.key): stored \(link.trips) trips \(link.riders) riders \(link.ratings), whole \(e.trips) \(e.devices.count) \(e.ratings)"
                    )
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches.count) links differ, first: \(mismatches.first ?? "")")
            #expect(try await store.networkCursor().nextNode == whole.nextNode)

            let map = SharedMap.build(confirmations: arrival)
            let expected = LinkObstacles.assign(map.obstacles, to: stored, radiusMeters: CorroborationRule().radiusMeters)
            let carried = stored.filter { $0.obstacles.count > 0 }
            #expect(!expected.isEmpty, "corroborated obstacles lie on the network")
            #expect(Set(carried.map(\.id)) == Set(expected.keys), "\(carried.count) links carry obstacles, \(expected.count) should")
            for l in carried {
                #expect(
                    l.obstacles.count == expected[l.id]?.count && abs(l.obstacles.confidence - (expected[l.id]?.confidence ?? 0)) < 1e-9)
            }
            // pgRouting reads `cost`, which is written only where it changed: after the rounds,
            // every link's is still the rule's for what the link carries now.
            if let pg = store as? PostgresHubStore {
                var stale = 0
                for try await (id, cost) in try await pg.client.query("SELECT id, cost FROM map_links", logger: Fixtures.logger)
                    .decode((Int64, Double?).self)
                {
                    guard let link = stored.first(where: { $0.id == id }) else { continue }
                    if cost.map({ abs($0 - RouteRule().cost(link)) > 1e-9 }) ?? true { stale += 1 }
                }
                #expect(stale == 0, "\(stale) of \(stored.count) links have a cost other than the rule's")
            }
        }
    }
}
