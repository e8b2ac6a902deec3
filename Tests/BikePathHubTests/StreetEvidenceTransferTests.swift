import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// A re-import whose extract split, merged or re-noded ways moves the riders' evidence to the
/// new edges along the old ones (docs/hub.md, "The riders' evidence on the streets",
/// "Re-imports"), on both stores alike; a street gone for good keeps its evidence stranded.
@Suite(.ownThreads) struct StreetEvidenceTransferTests {
    static func street(_ way: Int64, _ from: Int64, _ to: Int64, _ points: [(Double, Double)]) -> StreetEdge {
        StreetRouteTests.street(way, from, to, points, at: { Fixtures.at(east: $0, north: $1) })
    }

    /// Before: Main Street (way 10) with a cycle track 4 m north of it (way 20), two halves of
    /// one street (ways 30 and 31), a lane that goes (way 40) and a street that stays (way 50).
    static let before = [
        street(10, 1, 2, [(0, 0), (400, 0)]), street(20, 3, 4, [(0, 4), (400, 4)]),
        street(30, 5, 6, [(0, 100), (200, 100)]), street(31, 6, 7, [(200, 100), (400, 100)]),
        street(40, 8, 9, [(0, -200), (300, -200)]), street(50, 10, 11, [(0, 300), (300, 300)]),
    ]
    /// After: Main Street split at a new node 13, its east part a new way 11 drawn east to
    /// west; a side street (new way 70) leaving node 13 north, across the track; ways 30 and 31
    /// merged into 30; way 40 gone.
    static let after = [
        street(10, 1, 13, [(0, 0), (150, 0)]), street(11, 2, 13, [(400, 0), (150, 0)]), street(70, 13, 14, [(150, 0), (150, 40)]),
        street(20, 3, 4, [(0, 4), (400, 4)]), street(30, 5, 7, [(0, 100), (200, 100), (400, 100)]),
        street(50, 10, 11, [(0, 300), (300, 300)]),
    ]
    static func key(_ way: Int64, _ from: Int64, _ to: Int64) -> StreetEdge.Key { .init(way: way, from: from, to: to) }

    static func evidence(_ riders: [String], rated status: PathStatus = .optimal) -> StreetEvidence {
        var e = StreetEvidence()
        for rider in riders { e.rides.add(device: rider, day: 20_000, status: status) }
        return e
    }

    /// Main Street: 3 trips east (riders a, b), 1 west (c); way 30: 2 (a, b); way 31: 1 (c);
    /// way 40: 1 (a); way 50: 2 (a, b).
    static let ridden = [
        StreetIncrement(key: key(10, 1, 2), way: .forward, evidence: evidence(["a", "b", "a"])),
        StreetIncrement(key: key(10, 1, 2), way: .backward, evidence: evidence(["c"], rated: .medium)),
        StreetIncrement(key: key(30, 5, 6), way: .forward, evidence: evidence(["a", "b"])),
        StreetIncrement(key: key(31, 6, 7), way: .forward, evidence: evidence(["c"])),
        StreetIncrement(key: key(40, 8, 9), way: .forward, evidence: evidence(["a"])),
        StreetIncrement(key: key(50, 10, 11), way: .forward, evidence: evidence(["a", "b"])),
    ]

    @Test func splitMergedAndReNodedStreetsTakeTheirEvidenceAndOthersDoNot() {
        var byKey: [StreetEdge.Key: StreetEvidenceTransfer.Evidence] = [:]
        for i in Self.ridden { byKey[i.key, default: [:]][i.way] = i.evidence }
        let plan = StreetEvidenceTransfer.plan(
            old: Self.before.filter { byKey[$0.key] != nil }, oldKeys: Set(Self.before.map(\.key)), evidence: byKey, new: Self.after)
        #expect(plan.moved == [Self.key(10, 1, 2), Self.key(30, 5, 6), Self.key(31, 6, 7)], "way 40 is gone: its evidence stays")
        let got = Dictionary(grouping: plan.increments, by: \.key)
        #expect(Set(got.keys) == [Self.key(10, 1, 13), Self.key(11, 2, 13), Self.key(30, 5, 7)], "\(got.keys.sorted())")
        // The west part runs as the old edge did; the east part, drawn the other way, takes east as backward.
        let west = Dictionary(uniqueKeysWithValues: (got[Self.key(10, 1, 13)] ?? []).map { ($0.way, $0.evidence) })
        #expect(west[.forward]?.rides.trips == 3 && west[.backward]?.rides.trips == 1)
        let east = Dictionary(uniqueKeysWithValues: (got[Self.key(11, 2, 13)] ?? []).map { ($0.way, $0.evidence) })
        #expect(east[.backward]?.rides.trips == 3 && east[.forward]?.rides.trips == 1)
        #expect(east[.backward]?.rides.ratings == [3, 0, 0, 0] && east[.forward]?.rides.ratings == [0, 1, 0, 0])
        // The merge: the most trips either half had, every rider of both.
        let merged = got[Self.key(30, 5, 7)] ?? []
        #expect(merged.count == 1 && merged.first?.way == .forward)
        #expect(merged.first?.evidence.rides.trips == 2 && merged.first?.evidence.rides.devices == ["a", "b", "c"])
    }

    @Test func aReImportThatChangesNothingMovesNothing() {
        var byKey: [StreetEdge.Key: StreetEvidenceTransfer.Evidence] = [:]
        for i in Self.ridden { byKey[i.key, default: [:]][i.way] = i.evidence }
        let plan = StreetEvidenceTransfer.plan(
            old: Self.before.filter { byKey[$0.key] != nil }, oldKeys: Set(Self.before.map(\.key)), evidence: byKey, new: Self.before)
        #expect(plan.increments.isEmpty && plan.moved.isEmpty)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func bothStoresMoveTheEvidenceInTheImportAndKeepWhatHasNoStreet() async throws {
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
                try await store.migrate()
                try await store.replaceStreets(Self.before)
                #expect(try await store.commitStreetMatches([], evidence: Self.ridden), "\(backend)")
                let box = BoundingBox(west: 13.3, south: 52.5, east: 13.5, north: 52.6)

                let replaced = try await store.replaceStreets(Self.after)
                #expect(replaced == StreetReplacement(movedEvidence: 3, receivedEvidence: 3), "\(backend)")
                let tallies = try await store.streetTallies(in: box)
                #expect(
                    Set(tallies.keys) == [Self.key(10, 1, 13), Self.key(11, 2, 13), Self.key(30, 5, 7), Self.key(50, 10, 11)],
                    "\(backend): \(tallies.keys.sorted())")
                for part in [Self.key(10, 1, 13), Self.key(11, 2, 13)] {
                    #expect(
                        tallies[part]?.trips == 4 && tallies[part]?.riders == 3, "\(backend): \(part) \(String(describing: tallies[part]))")
                }
                #expect(tallies[Self.key(30, 5, 7)]?.trips == 2 && tallies[Self.key(30, 5, 7)]?.riders == 3, "\(backend)")
                #expect(tallies[Self.key(50, 10, 11)]?.trips == 2, "\(backend): a kept edge keeps its own")
                #expect(try await store.strandedStreetEvidence() == 1, "\(backend): only the gone lane's evidence is stranded")

                // Importing the same extract again moves nothing and changes nothing.
                #expect(try await store.replaceStreets(Self.after) == StreetReplacement(movedEvidence: 0, receivedEvidence: 0))
                #expect(try await store.streetTallies(in: box) == tallies, "\(backend)")
            }
        }
    }
}
