import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathFixtures
import BikePathTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@testable import BikePathHub

/// The wire's pre-release camelCase keys are read wherever wire JSON is
/// decoded, and never written: a hub's stored bodies are rewritten by its migration, an old
/// device's uploads are stored in today's form (docs/json.md, "Key case").
@Suite(.serialized, .ownThreads) struct PreReleaseKeysTests {
    static let confirmation = Fixtures.confirmation(id: "D-1", obstacles: [("pothole", 200)])
    static let sos = SOSUpload(
        id: "S-1", timeNs: 9_000, impactTimeNs: 8_000, impactPeak: 31.5, utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4)
    )
    static let live = LivePositionUpload(utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4), speed: 4.5)
    static let result = RecordResult(
        kind: .trip, id: "T-1", status: 409, outcome: .conflict, storedSha256: String(repeating: "a", count: 64),
        receivedSha256: String(repeating: "b", count: 64))

    static func roundTrip<T: Codable & Equatable>(_ value: T) throws {
        let snake = try WireJSON.encode(value), camel = try PreReleaseJSON.encode(value)
        #expect(camel != snake, "\(T.self) has renamed keys")
        #expect(try WireKeys.decode(T.self, from: camel) == value, "\(T.self) read in the pre-release names")
        #expect(try WireKeys.decode(T.self, from: snake) == value, "\(T.self) read in today's names")
        #expect((try? JSONDecoder().decode(T.self, from: camel)) != value, "a plain decoder does not read \(T.self)'s old names")
        // Every key today's encoding writes with an underscore was renamed: the table knows its old name.
        let keys = try Self.keys(JSONSerialization.jsonObject(with: snake)).filter { $0.contains("_") }
        #expect(keys.isSubset(of: Set(WireKeys.renamed.values)), "\(keys.subtracting(WireKeys.renamed.values))")
    }

    static func keys(_ value: Any) -> Set<String> {
        if let o = value as? [String: Any] { return o.reduce(into: Set(o.keys)) { $0.formUnion(keys($1.value)) } }
        if let a = value as? [Any] { return a.reduce(into: []) { $0.formUnion(keys($1)) } }
        return []
    }

    @Test func everyWireTypeReadsItsPreReleaseKeys() throws {
        try Self.roundTrip(Self.sos)
        try Self.roundTrip(Self.confirmation)
        try Self.roundTrip(Self.confirmation.draft)
        try Self.roundTrip(Fixtures.trip("T-1"))
        try Self.roundTrip(Self.live)
        try Self.roundTrip(Self.result)
        let old = try PreReleaseJSON.encode(Self.confirmation)
        #expect(
            try RecordBody.decode(kind: .confirmation, from: old).canonicalJSON()
                == RecordBody.confirmation(Self.confirmation).canonicalJSON())
    }

    /// Both names of one key in one object: which would win is not the decoder's to say.
    @Test func aKeyUnderBothNamesIsADuplicate() throws {
        let both = Data(
            #"{"distance_m":1,"elapsed_s":2,"moving_s":2,"avg_moving_speed_mps":1,"max_speed_mps":3,"maxSpeed":9,"elevation_gain_m":0,"co2_avoided_g":1}"#
                .utf8)
        #expect(throws: DecodingError.self) { try WireKeys.decode(TripStatisticsUpload.self, from: both) }
        #expect(throws: JSONShapeProblem.duplicateKey("max_speed_mps")) { try JSONShape.check(both, limits: .upload) }
        // In different objects, each name is read where it is.
        let mixed = Data(
            #"{"id":"T-1","start_utc_ns":1,"statistics":{"distanceM":1,"elapsedS":2,"movingS":2,"avgMovingSpeed":1,"maxSpeed":3,"elevationGainM":0,"co2AvoidedG":1}}"#
                .utf8)
        #expect(try WireKeys.decode(TripUpload.self, from: mixed).statistics.maxSpeed == 3)
    }

    /// A device not yet upgraded sends camelCase: stored in today's canonical form, and its
    /// re-send (a lost acknowledgement) is a duplicate, as today's form of it is.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func anOldDevicesUploadsAreStoredInSnakeCase(_ backend: Backend) async throws {
        try await HubContractTests.withHub(backend) { client, store in
            let old = try PreReleaseJSON.encode(Self.confirmation)
            let uri = "/v1/drafts/D-1/confirmation"
            let first = try await HubContractTests.raw(client, uri, old)
            #expect(first.status == .created, "\(String(buffer: first.body))")
            #expect(try await HubContractTests.raw(client, uri, old).status == .ok, "re-sent: duplicate")
            #expect(try await HubContractTests.put(client, uri, Self.confirmation).status == .ok, "today's form: the same record")
            let held = try await store.confirmations().map(\.body)
            #expect(held == [try RecordBody.confirmation(Self.confirmation).canonicalJSON()])

            let trip = Fixtures.trip("T-9")
            let batch = try PreReleaseJSON.encode(BatchRequest(records: [.init(id: "T-9", body: .trip(trip))]))
            let answer = try await HubContractTests.raw(client, "/v1/batch", batch, method: .post)
            #expect(answer.status == .ok && String(buffer: answer.body).contains(#""outcome":"created""#), "\(String(buffer: answer.body))")
            #expect(try await store.trips(device: "bike-1") == [try WireJSON.encode(trip)])

            // Both names in one object: refused before decoding, as any key twice.
            var both = try JSONSerialization.jsonObject(with: old) as! [String: Any]
            both["confirmed_sha256"] = String(repeating: "c", count: 64)
            both["confirmedSha256"] = String(repeating: "c", count: 64)
            let twice = try JSONSerialization.data(withJSONObject: both)
            let refused = try await HubContractTests.raw(client, "/v1/drafts/D-1/confirmation", twice)
            #expect(refused.status == .badRequest && String(buffer: refused.body).contains("twice"), "\(String(buffer: refused.body))")
        }
    }

    /// A hub as the previous build left it: bodies stored as camelCase canonical JSON. After
    /// `migrate()` every body is today's canonical form with its hash, an old device's
    /// re-send is `duplicate`, and the map indexes every confirmation.
    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func theMigrationRewritesStoredBodiesInSnakeCase(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let city = CitySimulation.generate(riders: 2, rides: 2, seed: 38)
        let storage = try backend.storage(dir)
        try await storage.withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            // The records the previous build stored: its canonical bytes were camelCase.
            var today: [String: Data] = [:]
            for c in city.confirmations {
                let id = try JSONDecoder().decode(ConfirmationUpload.self, from: c.body).draft.id
                today["\(c.device)/confirmation/\(id)"] = try RecordBody.decode(kind: .confirmation, from: c.body).canonicalJSON()
                let old = try PreReleaseJSON.camelCase(.confirmation, c.body)
                let stored = try await store.put(device: c.device, records: [(.confirmation, id, old)])
                #expect(stored.map(\.outcome) == [.created])
            }
            let trips = [Fixtures.trip("T-1"), Fixtures.trip("T-2")]
            for t in trips {
                today["rider-0/trip/\(t.id)"] = try WireJSON.encode(t)
                _ = try await store.put(device: "rider-0", records: [(.trip, t.id, try PreReleaseJSON.encode(t))])
            }
            let unreadable = Data(#"{"id":"T-3","note":"not a trip"}"#.utf8)
            _ = try await store.put(device: "rider-0", records: [(.trip, "T-3", unreadable)])
            try await Self.forgetTheMigration(store, storage)
            #expect(try await !store.appliedMigrations().contains(Self.migration(backend)))

            try await store.migrate()
            #expect(try await store.appliedMigrations().contains(Self.migration(backend)))
            let confirmations = try await store.unindexedConfirmations(after: nil, limit: 100)
            #expect(confirmations.count == city.confirmations.count)
            for c in confirmations { #expect(c.body == today["\(c.device)/confirmation/\(c.id)"], "\(c.id) in today's canonical form") }
            #expect(try await Set(store.trips(device: "rider-0")) == Set(trips.map { today["rider-0/trip/\($0.id)"]! } + [unreadable]))

            // The map indexes every confirmation: none left out as undecodable.
            let log = CapturedLog()
            let maintainer = MapMaintainer(store: store, metrics: HubMetrics(), logger: log.logger)
            let running = Task { try await maintainer.run() }
            defer { running.cancel() }
            let deadline = ContinuousClock.now + .seconds(90)
            func caughtUp() async throws -> Bool {
                let unindexed = try await store.unindexedConfirmations(after: nil, limit: 1)
                let dirty = try await store.dirtyMapTiles(limit: 1)
                return unindexed.isEmpty && dirty.isEmpty
            }
            while try await !caughtUp() {
                try #require(ContinuousClock.now < deadline, "the map caught up within 90 s")
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(
                !log.all.contains { $0.message.contains("does not decode") || $0.message.contains("set aside") },
                "\(log.all.map(\.message))")
            let expected = confirmations.compactMap(MapTiles.entry(for:)).reduce(into: MapEvidence()) { $0.add($1.evidence) }
            let tiles = Set(expected.reports.keys.map { MapEvidence.tile(ofReportCell: $0.cell) })
            let whole = Int(Int32.min)...Int(Int32.max)
            let stored = try await store.mapEvidence(tiles.sorted().map { ReportWindow(tile: $0, rows: whole, columns: whole) })
            #expect(!expected.reports.isEmpty && stored.reports == expected.reports)
            // An old device re-sends a record whose acknowledgement it lost: the same record.
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { client in
                let c = confirmations[0]
                let device = c.device
                let old = try PreReleaseJSON.camelCase(.confirmation, c.body)
                let answer = try await client.execute(
                    uri: "/v1/drafts/\(c.id)/confirmation", method: .put,
                    headers: [.authorization: "Bearer token-of-\(device)-0123456789", .contentType: "application/json"],
                    body: ByteBuffer(bytes: old))
                #expect(
                    answer.status == .ok && String(buffer: answer.body).contains(#""outcome":"duplicate""#),
                    "\(String(buffer: answer.body))")
                let trip = try await client.execute(
                    uri: "/v1/trips/T-1", method: .put,
                    headers: [.authorization: "Bearer token-of-rider-0-0123456789", .contentType: "application/json"],
                    body: ByteBuffer(bytes: try PreReleaseJSON.encode(trips[0])))
                #expect(trip.status == .ok, "\(String(buffer: trip.body))")
            }

        }
    }

    static func migration(_ backend: Backend) -> String { "v11-snake-case-bodies" }

    /// The store as the previous build left it: the bodies' migration not yet applied (its
    /// schema is the previous build's: the migration adds no table).
    static func forgetTheMigration(_ store: any HubStore, _ storage: HubStorage) async throws {
        switch storage {
        case .sqlite:
            let sqlite = try #require(store as? SQLiteHubStore)
            try await sqlite.pool.write { db in
                try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = ?", arguments: [migration(.sqlite)])
            }
        case .postgres(let url):
            let database = String(try #require(URLComponents(string: url)).path.dropFirst())
            try PostgresCluster.shared.get().psql(
                "DELETE FROM hub_migrations WHERE version = '\(migration(.postgres))'", database: database)
        }
    }
}
