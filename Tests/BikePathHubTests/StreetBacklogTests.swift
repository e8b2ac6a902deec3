import BikePathAPI
import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// Rides confirmed before a hub's first import (docs/hub.md, "The riders' evidence on the
/// streets"): the network takes them in with no street to match; once streets are imported
/// the map maintainer matches them, once, on both stores.
@Suite(.serialized, .ownThreads) struct StreetBacklogTests {
    static let short = StreetObstacleTests.streets([0])[0].key

    @Test(.timeLimitOnceRunning(.minutes(3))) func ridesConfirmedBeforeTheImportAreMatchedOnceAfterIt() async throws {
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let rides = try ["rider-a", "rider-b", "rider-c"].map { rider in
                (device: rider, body: try WireJSON.encode(Fixtures.confirmation(id: "R-\(rider)", meters: 400)))
            }
            try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await Fixtures.prepare(store, for: rides)
                for ride in rides.prefix(2) {
                    _ = try await store.put(device: ride.device, records: [(.confirmation, "R-\(ride.device)", ride.body)])
                }
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                #expect(try await store.networkCursor().applied == 2, "\(backend): the network took both in")
                #expect(try await store.unmatchedRides(limit: 10).count == 2, "\(backend)")

                try await store.replaceStreets(StreetObstacleTests.streets())
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                let matched = try #require(try await store.streetTallies(in: .world)[Self.short], "\(backend): Short Street")
                #expect(matched.trips == 2 && matched.riders == 2, "\(backend): \(matched)")
                #expect(try await store.unmatchedRides(limit: 10).isEmpty, "\(backend)")

                // Another pass adds nothing; a ride after the import is matched as it comes, once.
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                #expect(try await store.streetTallies(in: .world)[Self.short]?.trips == 2, "\(backend)")
                _ = try await store.put(device: rides[2].device, records: [(.confirmation, "R-rider-c", rides[2].body)])
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                try await MapMaintainer.pass(store, logger: Fixtures.logger)
                let three = try await store.streetTallies(in: .world)[Self.short]
                #expect(three?.trips == 3 && three?.riders == 3, "\(backend): \(String(describing: three))")
                #expect(try await store.unmatchedRides(limit: 10).isEmpty, "\(backend)")
                // A commit racing another replica's marks nothing and adds nothing.
                #expect(try await !store.commitStreetMatches([1], evidence: []), "\(backend): ride 1 was matched already")
            }
        }
    }
}
