import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathFixtures
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import BikePathHub

/// The hub's work is bounded per upload and per request (docs/hub.md, "Upload budget" and
/// "Request budget"), and it fails fast and says so when its database is gone.
@Suite(.serialized, .ownThreads) struct HostileWorkTests {
    /// A record stored before the upload checked the budget (here put past the routes) is set
    /// aside by the maintainer, with its reason in the log and in the store for the operator
    /// (`bikepath-hub map set-aside`), and the rest of the map goes on.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func theMaintainerSetsAsideAStoredRideOverBudget(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.issueToken(device: "bike-1", token: "token-of-bike-1-0123456789")
            let poison = try WireJSON.encode(HostileRides.polar("POLE"))
            let fine = try WireJSON.encode(Fixtures.confirmation(id: "FINE", obstacles: [("pothole", 300)]))
            _ = try await store.put(device: "bike-1", records: [(.confirmation, "POLE", poison), (.confirmation, "FINE", fine)])
            let log = CapturedLog()
            let t0 = ContinuousClock.now
            try await MapMaintainer.pass(store, logger: log.logger)
            #expect(ContinuousClock.now - t0 < .seconds(20), "the pass took \(ContinuousClock.now - t0)")
            let warnings = log.all.filter { $0.level == .warning }.map(\.message)
            #expect(warnings.count == 1 && warnings[0].contains("POLE of bike-1 set aside") && warnings[0].contains("±85°"), "\(warnings)")
            let aside = try await store.setAsideConfirmations()
            #expect(aside.map(\.key) == [ConfirmationKey(device: "bike-1", id: "POLE")] && aside[0].reason.contains("±85°"), "\(aside)")
            // Neither is left to index again; the fine ride's tiles are on the map.
            #expect(try await store.unindexedConfirmations(after: nil, limit: 10).isEmpty)
            #expect(try await store.mapTilesInUse().count > 0)
            let box = MapTiles.range(of: BoundingBox(west: 13.39, south: 52.51, east: 13.42, north: 52.53))
            #expect(try await !store.mapSlices(rows: box.rows, columns: box.columns).isEmpty)
            // A second pass finds nothing to do: the ride set aside is not retried.
            let again = CapturedLog()
            try await MapMaintainer.pass(store, logger: again.logger)
            #expect(again.all.filter { $0.level == .warning }.isEmpty)
        }
    }

    /// A confirmation whose indexing never finished (a hub killed, or a pass failing, while
    /// indexing it: each attempt is counted in the store before it is made) is tried again
    /// alone, and after `MapMaintainer.maxAttempts` set aside with why; the others in its batch
    /// are indexed. Here the attempts a hub killed three times would have left are counted
    /// as that hub counted them.
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: Backend.available)
    func aConfirmationThatNeverFinishesIndexingIsSetAsideAfterItsAttempts(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.issueToken(device: "bike-1", token: "token-of-bike-1-0123456789")
            // The first pass records the map rule's edition (a new edition forgets every attempt).
            try await MapMaintainer.pass(store, logger: Fixtures.logger)
            let ids = ["KILLER", "ONCE", "NEW"]
            _ = try await store.put(
                device: "bike-1", records: try ids.map { (.confirmation, $0, try WireJSON.encode(Fixtures.confirmation(id: $0))) })
            let key = { ConfirmationKey(device: "bike-1", id: $0) }
            for _ in 0..<MapMaintainer.maxAttempts { _ = try await store.countIndexingAttempt([key("KILLER")]) }
            #expect(try await store.countIndexingAttempt([key("ONCE")]) == [key("ONCE"): 0])
            let log = CapturedLog()
            try await MapMaintainer.pass(store, logger: log.logger)
            let aside = try await store.setAsideConfirmations()
            #expect(aside.map(\.key) == [key("KILLER")], "\(aside)")
            #expect(
                aside.first?.attempts == MapMaintainer.maxAttempts + 1
                    && aside.first?.reason.contains("did not finish in 3 attempts") == true)
            #expect(log.all.contains { $0.level == .warning && $0.message.contains("KILLER of bike-1 set aside") })
            // The one tried once before, and the new one, are indexed; none is left.
            #expect(try await store.unindexedConfirmations(after: nil, limit: 10).isEmpty)
            #expect(try await store.mapTilesInUse().count > 0)
            // Indexed ones leave no attempt behind: a later pass counts none for them.
            #expect(try await store.countIndexingAttempt([key("ONCE"), key("NEW")]) == [key("ONCE"): 0, key("NEW"): 0])
        }
    }

    /// Fields the hub does not know are not stored, and the answer says which: a record is not
    /// refused for them (a device newer than its hub), nor are they dropped unsaid. A string
    /// that looks like a key is not one.
    @Test(.timeLimitOnceRunning(.minutes(2))) func unknownUploadFieldsAreNamedInTheAnswer() async throws {
        try await HubContractTests.withHub(.sqlite) { client, store in
            let auth: HTTPFields = [.authorization: "Bearer token-of-bike-1-0123456789", .contentType: "application/json"]
            func withExtra(_ trip: TripUpload, _ extra: [String: Any]) throws -> [String: Any] {
                var object = try #require(try JSONSerialization.jsonObject(with: WireJSON.encode(trip)) as? [String: Any])
                object.merge(extra) { _, new in new }
                return object
            }
            let trip = try withExtra(
                Fixtures.trip("T1"), ["colour": "red", "note": "\"battery\": low", "gear": ["teeth": 50]])
            let answer = try await client.execute(
                uri: "/v1/trips/T1", method: .put, headers: auth,
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: trip)))
            #expect(answer.status == .created)
            let result = try JSONDecoder().decode(RecordResult.self, from: Data(buffer: answer.body))
            #expect(result.ignored == ["colour", "gear", "note", "teeth"], "\(result)")
            let stored = try #require(try await store.trips(device: "bike-1").first)
            #expect(!String(decoding: stored, as: UTF8.self).contains("colour"))

            // A record with every field known, in today's names or a pre-release build's: nothing is said.
            for (id, body) in [("T2", try WireJSON.encode(Fixtures.trip("T2"))), ("T4", try PreReleaseJSON.encode(Fixtures.trip("T4")))] {
                let plain = try await client.execute(uri: "/v1/trips/\(id)", method: .put, headers: auth, body: ByteBuffer(bytes: body))
                #expect(try JSONDecoder().decode(RecordResult.self, from: Data(buffer: plain.body)).ignored == nil, "\(id)")
            }

            // A batch says it once, for the batch.
            let item: [String: Any] = ["kind": "trip", "id": "T3", "body": try withExtra(Fixtures.trip("T3"), ["typo": 1])]
            let batch = try await client.execute(
                uri: "/v1/batch", method: .post, headers: auth,
                body: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["records": [item]])))
            let response = try JSONDecoder().decode(BatchResponse.self, from: Data(buffer: batch.body))
            #expect(batch.status == .ok && response.results.map(\.outcome) == [.created] && response.ignored == ["typo"], "\(response)")
        }
    }

    /// At the door: over-budget uploads answer 400 naming the limit; a thin box round the world
    /// are refused in milliseconds, not answered in seconds.
    @Test(.timeLimitOnceRunning(.minutes(2))) func overBudgetUploadsAndBoxesAreRefusedNamingTheLimit() async throws {
        try await HubContractTests.withHub(.sqlite) { client, store in
            let auth: HTTPFields = [.authorization: "Bearer token-of-bike-1-0123456789", .contentType: "application/json"]
            let polar = try await client.execute(
                uri: "/v1/drafts/POLE/confirmation", method: .put, headers: auth,
                body: ByteBuffer(bytes: try WireJSON.encode(HostileRides.polar("POLE"))))
            #expect(polar.status == .badRequest)
            let result = try JSONDecoder().decode(RecordResult.self, from: Data(buffer: polar.body))
            #expect(result.outcome == .invalid && result.error?.contains("the map indexes rides within ±85°") == true, "\(result)")
            #expect(try await store.unindexedConfirmations(after: nil, limit: 1).isEmpty, "nothing was stored")

            for (query, code) in [
                ("/v1/map/heatmap?bbox=-180,-0.0001,180,0.0001&cell=5000", "too-many-tiles"),
                ("/v1/map/obstacles?bbox=-180,-0.0001,180,0.0001", "too-many-tiles"),
            ] {
                let t0 = ContinuousClock.now
                let answer = try await client.execute(uri: query, method: .get)
                #expect(ContinuousClock.now - t0 < .seconds(1), "\(query) took \(ContinuousClock.now - t0)")
                #expect(answer.status == .badRequest, "\(query)")
                let error = try JSONDecoder().decode(ErrorBody.self, from: Data(buffer: answer.body))
                #expect(error.error == code, "\(error)")
            }
            // The page's widest view still answers.
            let wide = try await client.execute(uri: "/v1/map/heatmap?bbox=13.0,52.2,14.0,52.8&cell=5000", method: .get)
            #expect(wide.status == .ok)
        }
    }

    /// With PostgreSQL stopped, every endpoint that needs it answers within its deadline a 503
    /// with the Error JSON, `Retry-After` and `X-Request-Id` (the first requests hung 66.7 s,
    /// later ones answered an empty 500).
    @Test(
        .timeLimitOnceRunning(.minutes(3)),
        .enabled(if: PostgresCluster.binDirectory != nil || PostgresCluster.required, "needs PostgreSQL"))
    func withTheDatabaseGoneEveryEndpointSaysSoFast() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        try await HubStorage.postgres(url: url).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.issueToken(device: "bike-1", token: "token-of-bike-1-0123456789")
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { client in
                let auth: HTTPFields = [.authorization: "Bearer token-of-bike-1-0123456789", .contentType: "application/json"]
                let trip = ByteBuffer(bytes: try WireJSON.encode(Fixtures.trip("T1")))
                #expect(try await client.execute(uri: "/v1/trips/T1", method: .put, headers: auth, body: trip).status == .created)
                cluster.stop()
                let requests: [(String, HTTPRequest.Method, ByteBuffer?)] = [
                    ("/v1/map/obstacles?bbox=13.3,52.5,13.5,52.6", .get, nil),
                    ("/v1/map/status?bbox=13.3,52.5,13.5,52.6", .get, nil),
                    ("/v1/map/network?bbox=13.3,52.5,13.5,52.6", .get, nil),
                    ("/v1/map/heatmap?bbox=13.3,52.5,13.5,52.6", .get, nil),
                    ("/v1/routes?from=52.52,13.40&to=52.53,13.42", .get, nil),
                    ("/v1/me/totals", .get, nil),
                    ("/v1/trips/T2", .put, ByteBuffer(bytes: try WireJSON.encode(Fixtures.trip("T2")))),
                ]
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (uri, method, body) in requests {
                        group.addTask {
                            let t0 = ContinuousClock.now
                            let answer = try await client.execute(uri: uri, method: method, headers: auth, body: body)
                            let took = ContinuousClock.now - t0
                            #expect(took < .seconds(13), "\(uri) answered after \(took)")
                            #expect(answer.status == .serviceUnavailable, "\(uri): \(answer.status) \(String(buffer: answer.body))")
                            #expect(answer.headers[.retryAfter] == "\(StoreFailure.retryAfterSeconds)", "\(uri)")
                            #expect(answer.headers[HTTPField.Name("X-Request-Id")!]?.isEmpty == false, "\(uri)")
                            #expect(answer.headers[.contentType] == "application/json", "\(uri)")
                            let error = try? JSONDecoder().decode(ErrorBody.self, from: Data(buffer: answer.body))
                            #expect(error?.error == "unavailable", "\(uri): \(String(buffer: answer.body))")
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
            }
        }
    }
}
