import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The riders' evidence on the streets (docs/hub.md, "The riders' evidence on the streets"),
/// end to end on real data: central London's extract (`RealExtract`, © OpenStreetMap
/// contributors) imported by `bikepath-hub import-osm`, a real `bikepath-hub serve`, and the
/// bundled real ride GX010056 (allthedocks, London 2023) replayed, confirmed and synced by
/// the real `bikepathd` of two riders, one after the other, as `scripts/london-network` does.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct StreetEvidenceTests {
    static let ride = Paths.root + "/Recordings/allthedocks-GX010056.bpr"
    static let riders = ["rider-a", "rider-b"]

    /// The hub's evidence on the streets, every edge.
    static func tallies(_ storage: HubStorage) async throws -> [StreetEdge.Key: StreetTally] {
        try await storage.withStore(logger: Fixtures.logger) { store in try await store.streetTallies(in: StreetImportTests.world) }
    }

    /// `rider` replays the ride on a fresh device, confirms its drafts and syncs them to `hub`;
    /// then the hub's map maintainer has applied the rides of `riders` riders to the network.
    static func ride(_ rider: String, to hub: HubProcess, _ dir: TempDir, storage: HubStorage, riders: Int) async throws {
        let bin = try #require(builtExecutable("bikepathd"))
        _ = FileManager.default.createFile(
            atPath: dir.file("\(rider).token"), contents: Data("london-\(rider)-0123456789abcdef\n".utf8),
            attributes: [.posixPermissions: 0o600])
        let config = dir.file("\(rider).toml")
        try """
        [store]
        path = "\(dir.file("\(rider).sqlite"))"
        [privacy]
        share_trips = true
        [sync]
        hub_url = "\(hub.url)"
        token_file = "\(dir.file("\(rider).token"))"
        [status]
        socket = "\(dir.file("\(rider).sock"))"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        func run(_ arguments: [String]) async throws -> String {
            let result = try await runProcess(bin, arguments + ["--config", config])
            #expect(result.status == 0, "bikepathd \(arguments.joined(separator: " ")): \(result.err)")
            return result.out
        }
        _ = try await run(["run", "--replay", ride])
        _ = try await run(["sync", "consent", "trips", "on"])
        let listed = try await run(["drafts", "list", "--state", "pending", "--json"])
        let drafts = try #require(try JSONSerialization.jsonObject(with: Data(listed.utf8)) as? [String: Any])["drafts"] as? [[String: Any]]
        let ids = try #require(drafts).compactMap { $0["id"].map { "\($0)" } }
        #expect(!ids.isEmpty, "the replay made no draft: \(listed)")
        for id in ids { _ = try await run(["drafts", "confirm", id]) }
        _ = try await run(["sync", "run", "--once"])
        var applied = false
        for _ in 0..<300 where !applied {
            let cursor = try await storage.withStore(logger: Fixtures.logger) { try await $0.networkCursor() }
            applied = cursor.applied >= Int64(riders * ids.count)
            if !applied { try await Task.sleep(for: .milliseconds(200)) }
        }
        #expect(applied, "the hub's map maintainer did not apply \(rider)'s rides within 60 s")
    }

    /// The best route from the point `a` of the way along `edge` to the point `b`.
    static func route(_ storage: HubStorage, along edge: StreetEdge, _ a: Double, _ b: Double) async throws -> Route {
        try await storage.withStore(logger: Fixtures.logger) { store in
            try await StreetRouteExtractTests.route(store, StreetRouteExtractTests.along(edge, a), StreetRouteExtractTests.along(edge, b))
        }
    }

    /// The rating every trip gave `tally`'s edge, when they all gave the same one.
    static func onlyRating(_ tally: StreetTally) -> PathStatus? {
        let given = tally.ratings.indices.filter { tally.ratings[$0] > 0 }
        return given.count == 1 ? PathStatus.allCases[given[0]] : nil
    }

    @Test(.timeLimitOnceRunning(.minutes(8))) func twoRidersOfARealRideRateTheStreetsTheyRodeAndRoutesSaySo() async throws {
        var stored: [(Backend, [StreetEdge.Key: StreetTally])] = []
        for backend in Backend.available {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let (arguments, storage, streets) = try await StreetImportTests.imported(backend, dir)
            let byKey = Dictionary(uniqueKeysWithValues: streets.edges.map { ($0.key, $0) })
            // The hub refuses a tokens file others may read.
            _ = FileManager.default.createFile(
                atPath: dir.file("tokens"), contents: Data(Self.riders.map { "\($0) london-\($0)-0123456789abcdef\n" }.joined().utf8),
                attributes: [.posixPermissions: 0o600])
            let database: String? = if case .postgres(let url) = storage { url } else { nil }
            let hub = try HubProcess(db: dir.file("hub.sqlite"), tokens: dir.file("tokens"), database: database)
            defer { hub.stop() }

            // One rider: the streets hold the ride's evidence, and none of it is public.
            try await Self.ride("rider-a", to: hub, dir, storage: storage, riders: 1)
            let one = try await Self.tallies(storage)
            // The ride, 532 m after the device's privacy trim, runs down Ray Street and
            // Farringdon Lane to Farringdon Road (Clerkenwell).
            let rode = Set(one.keys.compactMap { byKey[$0]?.name })
            #expect(rode.isSuperset(of: ["Ray Street", "Farringdon Lane", "Farringdon Road"]), "\(backend): \(rode.sorted())")
            #expect(one.values.allSatisfy { $0.riders == 1 }, "\(backend)")
            // The street rode longest, rated one way by the ride, long enough to route along.
            let rated = one.filter { Self.onlyRating($0.value) != nil }.compactMap { byKey[$0.key] }.filter { $0.name != nil }
            let street = try #require(rated.max { ($0.lengthMeters, $1.key) < ($1.lengthMeters, $0.key) }, "\(backend): no rated street")
            let status = try #require(Self.onlyRating(one[street.key]!))
            // Its allowed way (a one-way is ridden only its way).
            let (from, to) = street.direction == .backward ? (0.85, 0.15) : (0.15, 0.85)
            let alone = try await Self.route(storage, along: street, from, to)
            let leg = try #require(alone.legs.first { $0.name == street.name }, "\(backend): \(alone.legs)")
            #expect(leg.status == "unrated" && leg.riders == 0, "\(backend): one rider's street said \(leg)")

            // Two riders: the same streets public, with the rating they gave, in the route's legs.
            try await Self.ride("rider-b", to: hub, dir, storage: storage, riders: 2)
            let two = try await Self.tallies(storage)
            #expect(Set(two.keys) == Set(one.keys), "\(backend): the second rider's identical ride matched other streets")
            #expect(two.values.allSatisfy { $0.riders == 2 }, "\(backend)")
            #expect(two.allSatisfy { $0.value.trips == 2 * one[$0.key]!.trips }, "\(backend)")
            #expect(Self.onlyRating(two[street.key]!) == status)
            let together = try await Self.route(storage, along: street, from, to)
            let shown = try #require(together.legs.first { $0.name == street.name }, "\(backend): \(together.legs)")
            #expect(shown.status == status.rawValue && shown.riders == 2, "\(backend): \(street.name!) said \(shown)")
            // The riders' status replaces the tags' factor in the score (`RouteRule.cost`).
            let factor = RouteRule().statusFactors[PathStatus.allCases.firstIndex(of: status)!]
            #expect(
                abs(together.score - alone.score) > 1e-6 || abs(factor - RouteRule().streetFactor(street)) < 1e-9,
                "\(backend): the score did not change with the riders' status")

            // A re-import of the same extract keeps every edge's evidence on it.
            let again = try await StreetImportTests.importOSM(arguments, StreetImportTests.central)
            #expect(again.status == 0, "\(again.err)")
            #expect(!again.out.contains("matches no imported street"), "\(again.out)")
            #expect(try await Self.tallies(storage) == two, "\(backend): a re-import moved the evidence")
            stored.append((backend, two))
        }
        // Both stores hold the same evidence.
        for (backend, tallies) in stored.dropFirst() {
            #expect(Set(tallies.keys) == Set(stored[0].1.keys), "\(backend) and \(stored[0].0) matched different streets")
            for (key, tally) in tallies {
                let other = try #require(stored[0].1[key])
                #expect(tally.trips == other.trips && tally.riders == other.riders && tally.ratings == other.ratings, "\(backend): \(key)")
                #expect(abs((tally.roughness ?? 0) - (other.roughness ?? 0)) < 1e-9, "\(backend): \(key)")
            }
        }
    }
}
