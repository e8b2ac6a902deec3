import BikePathAPI
import BikePathHub
import BikePathTestSupport
import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The hub answers as docs/api.yaml says, in process over real HTTP (HummingbirdTesting
/// `.live`), on each store.
@Suite(.serialized, .ownThreads) struct HubContractTests {
    static let tokens = [
        "bike-1": "token-of-bike-1-0123456789", "bike-2": "token-of-bike-2-0123456789", "bike-3": "token-of-bike-3-0123456789",
    ]

    /// The application on a fresh store of `backend`, migrated, with three devices.
    static func withHub(
        _ backend: Backend, limits: HubLimits = HubLimits(),
        _ test: @escaping @Sendable (any TestClientProtocol, any HubStore) async throws -> Void
    ) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let configuration = HubConfiguration(port: 0, limits: limits)
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            for (device, token) in tokens { try await store.issueToken(device: device, token: token) }
            let app = try Hub.buildApplication(configuration: configuration, store: store, logger: Fixtures.logger)
            try await app.test(.live) { client in try await test(KeyCaseCheckedClient(base: client), store) }
        }
    }

    static func put<T: Encodable>(
        _ client: any TestClientProtocol, _ uri: String, _ value: T, device: String = "bike-1",
        method: HTTPRequest.Method = .put
    ) async throws -> TestResponse {
        try await client.execute(
            uri: uri, method: method, headers: [.authorization: "Bearer \(tokens[device]!)", .contentType: "application/json"],
            body: ByteBuffer(bytes: try WireJSON.encode(value)))
    }

    /// A raw body with the device's token, gzipped unless `encoding` says otherwise.
    static func raw(
        _ client: any TestClientProtocol, _ uri: String, _ body: Data, method: HTTPRequest.Method = .put,
        encoding: String? = "gzip", gzip: Bool = true, contentType: String? = "application/json"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [.authorization: "Bearer \(tokens["bike-1"]!)"]
        if let encoding { headers[.contentEncoding] = encoding }
        if let contentType { headers[.contentType] = contentType }
        var buffer = ByteBuffer(bytes: body)
        if gzip { buffer = try buffer.compress(with: .gzip) }
        return try await client.execute(uri: uri, method: method, headers: headers, body: buffer)
    }

    static func error(_ r: TestResponse) -> String? {
        try? JSONDecoder().decode(ErrorBody.self, from: Data(r.body.readableBytesView)).error
    }
    static func result(_ r: TestResponse) -> RecordResult? {
        try? JSONDecoder().decode(RecordResult.self, from: Data(r.body.readableBytesView))
    }

    static func json(_ r: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(r.body.readableBytesView)) as? [String: Any])
    }

    @Test(arguments: Backend.available) func recordsAreStoredOnceAndConflictsRefused(_ backend: Backend) async throws {
        try await Self.withHub(backend) { client, store in
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
            let trip = Fixtures.trip("TRIP-1")
            let noToken = try await client.execute(
                uri: "/v1/trips/TRIP-1", method: .put, body: ByteBuffer(bytes: try WireJSON.encode(trip)))
            #expect(noToken.status == .unauthorized)
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip).status == .created)
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip).status == .ok)
            var changed = trip
            changed.statistics.distanceM += 1
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", changed).status == .conflict)
            // The same key from another device is that device's own record.
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip, device: "bike-2").status == .created)

            let batch = BatchRequest(records: [
                .init(id: "TRIP-1", body: .trip(trip)), .init(id: "TRIP-2", body: .trip(Fixtures.trip("TRIP-2"))),
            ])
            let answer = try await Self.put(client, "/v1/batch", batch, method: .post)
            #expect(answer.status == .ok)
            let results = try JSONDecoder().decode(BatchResponse.self, from: Data(answer.body.readableBytesView)).results
            #expect(results.map(\.outcome) == [.duplicate, .created])

            let totals = try await client.execute(
                uri: "/v1/me/totals", method: .get, headers: [.authorization: "Bearer \(Self.tokens["bike-1"]!)"])
            let t = try JSONDecoder().decode(DeviceTotals.self, from: Data(totals.body.readableBytesView))
            #expect(t == DeviceTotals(trips: [trip, Fixtures.trip("TRIP-2")]))
            #expect(t.trips == 2 && t.distanceM == 2000 && t.co2AvoidedG == 240)
            #expect(try await store.appliedMigrations().isEmpty == false)
            #expect(try await store.revoke(device: "bike-3"))
            #expect(try await Self.put(client, "/v1/trips/TRIP-9", trip, device: "bike-3").status == .unauthorized)
            #expect(try await store.devices().map(\.revoked) == [false, false, true])
        }
    }

    /// Waits for the map maintainer's pass (it trails uploads, docs/hub.md): every
    /// confirmation indexed and no tile dirty. Counted in polls, as `waitUntil`.
    static func mapCaughtUp(_ store: any HubStore) async throws {
        for _ in 0..<1_000 {
            if try await store.unindexedConfirmations(after: nil, limit: 1).isEmpty, try await store.dirtyMapTiles(limit: 1).isEmpty {
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        Issue.record("the map maintainer did not catch up")
    }

    @Test(arguments: Backend.available) func theMapPublishesOnlyWhatSeveralRidersConfirmed(_ backend: Backend) async throws {
        try await Self.withHub(backend) { client, store in
            // bike-1 and bike-2 report a pothole ~5 m apart (bike-2 by a rider's mark); bike-3 alone reports a bump.
            #expect(
                try await Self.put(client, "/v1/drafts/A/confirmation", Fixtures.confirmation(id: "A", obstacles: [("pothole", 300)]))
                    .status == .created)
            #expect(
                try await Self.put(
                    client, "/v1/drafts/B/confirmation", Fixtures.confirmation(id: "B", obstacles: [("pothole", 305)], origin: "rider"),
                    device: "bike-2"
                ).status == .created)
            #expect(
                try await Self.put(
                    client, "/v1/drafts/C/confirmation", Fixtures.confirmation(id: "C", obstacles: [("bump", 500)], status: "medium"),
                    device: "bike-3"
                ).status == .created)
            // A draft that is not confirmed is never on the map.
            let pending = Fixtures.confirmation(id: "P", obstacles: [("bump", 500)]).draft
            #expect(try await Self.put(client, "/v1/drafts/P", pending, device: "bike-1").status == .created)

            try await Self.mapCaughtUp(store)
            let bbox = "13.39,52.51,13.42,52.53"
            let obstacles = try await client.execute(uri: "/v1/map/obstacles?bbox=\(bbox)", method: .get)
            #expect(obstacles.status == .ok && obstacles.headers[.contentType] == "application/geo+json")
            let features = try #require(try Self.json(obstacles)["features"] as? [[String: Any]])
            #expect(features.count == 1)
            let properties = try #require(features.first?["properties"] as? [String: Any])
            #expect(properties["kind"] as? String == "pothole" && properties["riders"] as? Int == 2)
            #expect(properties["first_seen"] as? String == "2026-11-01")
            let text = String(buffer: obstacles.body)
            #expect(!text.contains("bike-"), "no device id on the public map")

            let status = try Self.json(try await client.execute(uri: "/v1/map/status?bbox=\(bbox)", method: .get))
            let cells = try #require(status["features"] as? [[String: Any]])
            #expect(!cells.isEmpty)
            #expect(cells.allSatisfy { (($0["properties"] as? [String: Any])?["riders"] as? Int ?? 0) >= 2 })
            #expect(cells.contains { ($0["properties"] as? [String: Any])?["status"] as? String == "requiresMaintenance" })

            let heat = try Self.json(try await client.execute(uri: "/v1/map/heatmap?bbox=\(bbox)&cell=100", method: .get))
            let heatCells = try #require(heat["features"] as? [[String: Any]])
            #expect(heatCells.count == 1, "the lone bump rests on one rider and is not shown")

            #expect(try await client.execute(uri: "/v1/map/obstacles?bbox=1,2,3", method: .get).status == .badRequest)
            #expect(try await client.execute(uri: "/v1/map/obstacles?bbox=-10,30,40,70", method: .get).status == .badRequest)

            // The maintainer's work is on /metrics (counted just after its tiles are stored).
            var remade = 0
            for _ in 0..<500 where remade == 0 {
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                let line = metrics.split(separator: "\n").first { $0.hasPrefix(#"bikepath_hub_map_tiles_total{outcome="remade"}"#) }
                remade = line.flatMap { $0.split(separator: " ").last.flatMap { Int($0) } } ?? 0
                if remade == 0 { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(remade > 0, "bikepath_hub_map_tiles_total counts the tiles remade")
        }
    }

    @Test func aRunawayDeviceIsSlowedAndTheMetricsSayWhat() async throws {
        try await Self.withHub(.sqlite, limits: HubLimits(deviceRecordsPerSecond: 1, deviceBurst: 2)) { client, _ in
            let trip = Fixtures.trip("TRIP-1")
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip).status == .created)
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip).status == .ok)
            let limited = try await Self.put(client, "/v1/trips/TRIP-1", trip)
            #expect(limited.status == .tooManyRequests && limited.headers[.retryAfter] == "1")
            // Another device has its own bucket.
            #expect(try await Self.put(client, "/v1/trips/TRIP-1", trip, device: "bike-2").status == .created)

            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"bikepath_hub_requests_total{route="/v1/trips/{id}",method="PUT",status="201"} 2"#))
            #expect(metrics.contains(#"bikepath_hub_requests_total{route="/v1/trips/{id}",method="PUT",status="429"} 1"#))
            #expect(metrics.contains(#"bikepath_hub_records_total{kind="trip",outcome="created"} 2"#))
            #expect(metrics.contains(#"bikepath_hub_records_total{kind="trip",outcome="duplicate"} 1"#))
            #expect(metrics.contains(#"bikepath_hub_rejections_total{reason="rate-limited"} 1"#))
            #expect(metrics.contains("bikepath_hub_request_duration_seconds_bucket"))
        }
    }

    /// Moved from BikePathSyncTests (it spawned the hub): bodies judged field by field.
    @Test func badBodiesAreRefusedWithTheReason() async throws {
        try await Self.withHub(.sqlite) { client, store in
            let trip = Fixtures.trip("TRIP-1")
            let body = try WireJSON.encode(trip)
            // Plain (not gzip) and reformatted: still the identical record.
            #expect(try await Self.raw(client, "/v1/trips/TRIP-1", body).status == .created)
            let pretty = try JSONSerialization.data(withJSONObject: try JSONSerialization.jsonObject(with: body), options: [.prettyPrinted])
            let again = try await Self.raw(client, "/v1/trips/TRIP-1", pretty, encoding: nil, gzip: false)
            #expect(again.status == .ok && Self.result(again)?.outcome == .duplicate)
            var changed = trip
            changed.statistics.distanceM += 1
            let conflict = try #require(Self.result(try await Self.raw(client, "/v1/trips/TRIP-1", try WireJSON.encode(changed))))
            #expect(conflict.outcome == .conflict && conflict.storedSha256?.count == 64 && conflict.storedSha256 != conflict.receivedSha256)

            let otherKey = try await Self.raw(client, "/v1/trips/TRIP-2", body)
            #expect(otherKey.status == .badRequest && Self.result(otherKey)?.error?.contains("differs from the key") == true)
            let missing = try await Self.raw(client, "/v1/trips/TRIP-3", Data(#"{"id":"TRIP-3"}"#.utf8))
            #expect(missing.status == .badRequest && Self.result(missing)?.error?.contains("missing field statistics") == true)
            let corrupt = try await Self.raw(client, "/v1/trips/TRIP-1", Data("not gzip at all".utf8), gzip: false)
            #expect(corrupt.status == .badRequest && Self.error(corrupt) == "bad-gzip")
            let brotli = try await Self.raw(client, "/v1/trips/TRIP-1", body, encoding: "br", gzip: false)
            #expect(brotli.status == .unsupportedMediaType && Self.error(brotli) == "unsupported-encoding")

            // A draft is published only through a confirmation that says so.
            let draft = Fixtures.confirmation(id: "D-1").draft
            let unconfirmed = try await Self.raw(
                client, "/v1/drafts/D-1/confirmation",
                try WireJSON.encode(ConfirmationUpload(confirmed: false, confirmedSha256: nil, draft: draft)))
            #expect(unconfirmed.status == .badRequest && Self.result(unconfirmed)?.error?.contains("confirmed: must be true") == true)
            #expect(try await Self.raw(client, "/v1/drafts/D-1", try WireJSON.encode(draft)).status == .created)
            #expect(try await store.confirmations().isEmpty, "a private draft is not published")

            // A batch: each item judged on its own, one answer per item.
            var bad = trip
            bad.id = "TRIP-4"
            bad.statistics.maxSpeed = -3
            let batch = BatchRequest(records: [
                .init(id: "TRIP-1", body: .trip(trip)), .init(id: "TRIP-4", body: .trip(bad)),
                .init(id: "D-1", body: .confirmation(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))),
            ])
            let answer = try await Self.raw(client, "/v1/batch", try WireJSON.encode(batch), method: .post)
            let results = try JSONDecoder().decode(BatchResponse.self, from: Data(answer.body.readableBytesView)).results
            #expect(answer.status == .ok && results.map(\.status) == [200, 400, 201])
            #expect(results[1].error?.contains("statistics.max_speed_mps") == true)
            let malformed = try await Self.raw(client, "/v1/batch", Data(#"{"records":[{"kind":"nope"}]}"#.utf8), method: .post)
            #expect(malformed.status == .badRequest && Self.error(malformed) == "invalid-batch")
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
        }
    }
}
