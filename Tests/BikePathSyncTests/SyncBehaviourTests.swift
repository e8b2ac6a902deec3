import BikePathAPI
import BikePathCore
import BikePathStore
import BikePathSync
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing

@Suite(.ownThreads) struct BackoffAndTokenTests {
    @Test func backoffDoublesWithJitterAndStopsAtFiveMinutes() {
        let b = Backoff()
        #expect(b.delay(afterFailures: 0, jitter: 0.3) == 0)
        #expect(b.delay(afterFailures: 1, jitter: 0) == 0.5)
        #expect(b.delay(afterFailures: 1, jitter: 1) == 1)
        #expect(b.delay(afterFailures: 4, jitter: 0.5) == 6)  // d = 8: 4 + 0.5·4
        #expect(b.delay(afterFailures: 9, jitter: 1) == 256)
        #expect(b.delay(afterFailures: 10, jitter: 1) == 300)
        #expect(b.delay(afterFailures: 10_000, jitter: 1) == 300)
        #expect(b.delay(afterFailures: 10_000, jitter: 0) == 150)
    }

    @Test func retryAfterTakesSecondsOrADate() {
        #expect(RetryAfter.seconds("7") == 7)
        #expect(RetryAfter.seconds(nil) == nil)
        #expect(RetryAfter.seconds("soon") == nil)
        #expect(RetryAfter.seconds("99999") == 3600)
        let now = Date(timeIntervalSince1970: 1_445_412_480)  // Wed, 21 Oct 2015 07:28:00 GMT
        #expect(RetryAfter.seconds("Wed, 21 Oct 2015 07:28:30 GMT", now: now) == 30)
    }

    @Test func tokenFileReadableByOthersIsRefused() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("token")
        _ = FileManager.default.createFile(
            atPath: path, contents: Data("secret-token-value-123\n".utf8), attributes: [.posixPermissions: 0o644])
        #expect(throws: DeviceToken.Problem.tooOpen(path: path, mode: "644")) { try DeviceToken.read(path: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        #expect(throws: DeviceToken.Problem.self) { try DeviceToken.read(path: path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        let token = try DeviceToken.read(path: path)
        #expect(!"\(token)".contains("secret"))
        #expect(!String(reflecting: token).contains("secret"))
        #expect(throws: DeviceToken.Problem.self) { try DeviceToken.read(path: dir.file("missing")) }
    }

    @Test func plainHTTPOnlyOnLoopback() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        _ = FileManager.default.createFile(
            atPath: dir.file("t"), contents: Data("secret-token-value-123".utf8), attributes: [.posixPermissions: 0o600])
        let token = try DeviceToken.read(path: dir.file("t"))
        #expect(throws: HubEndpoint.Problem.self) { try HubClient(endpoint: HubEndpoint(baseURL: "http://hub.example.org", token: token)) }
        #expect(throws: HubEndpoint.Problem.self) { try HubClient(endpoint: HubEndpoint(baseURL: "ftp://127.0.0.1", token: token)) }
    }
}

@Suite(.ownThreads) struct ValidationTests {
    static let stats = TripStatisticsUpload(
        distanceM: 1000, elapsedS: 300, movingS: 290, avgMovingSpeed: 3.4, maxSpeed: 7, elevationGainM: 3, co2AvoidedG: 120)

    @Test func soundRecordsPassAndEachBadFieldIsNamed() {
        let trip = TripUpload(id: "T-1", startUtcNs: 1_790_000_000_000_000_000, endUtcNs: 1_790_000_300_000_000_000, statistics: Self.stats)
        #expect(Validation.problems(.trip(trip)).isEmpty)
        var bad = trip
        bad.statistics.distanceM = -1
        bad.startUtcNs = 0  // a week-rollover style date
        let problems = Validation.problems(.trip(bad))
        #expect(problems.contains { $0.hasPrefix("statistics.distance_m") })
        #expect(problems.contains { $0.hasPrefix("start_utc_ns") })
        #expect(!Validation.isValidID("a/b") && !Validation.isValidID("") && !Validation.isValidID(String(repeating: "x", count: 65)))
        let draft = DraftUpload(
            id: "D-1", trip: trip, pathStatus: "bumpy", path: [[91, 13], [52.5]],
            obstacles: [
                ObstacleUpload(id: "O-1", kind: "crater", offsetS: 10, position: WirePosition(lat: 52, lon: 200), origin: "alien")
            ], roadQuality: [])
        let dp = Validation.problems(.confirmation(ConfirmationUpload(confirmed: false, confirmedSha256: "xyz", draft: draft)))
        for field in [
            "confirmed", "confirmed_sha256", "draft.path_status", "draft.path[0].lat", "draft.path[1]", "draft.obstacles[0].kind",
            "draft.obstacles[0].position.lon", "draft.obstacles[0].origin",
        ] {
            #expect(dp.contains { $0.hasPrefix(field + ":") }, "\(field) in \(dp)")
        }
    }

    @Test func apiDocumentIsValidOpenAPI() throws {
        let check = try runProcess(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import sys
                try:
                    from openapi_spec_validator import validate
                    from openapi_spec_validator.readers import read_from_filename
                except ImportError:
                    print("no-validator"); sys.exit(0)
                d, _ = read_from_filename(sys.argv[1]); validate(d); print("valid")
                """, packageRoot + "/docs/api.yaml",
            ])
        #expect(check.status == 0, "\(check.err)")
        if check.out.contains("no-validator") { return }  // the validator is optional on a developer machine
        #expect(check.out.contains("valid"))
    }
}

@Suite(.serialized, .ownThreads) struct SyncBehaviourTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func priorityOrderSOSConfirmationsDraftsTrips() async throws {
        let device = try await Device(trips: 4, seconds: 300, confirm: 2)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            try await drain(device.engine(client, batchSize: 1))
        }
        let q = try DatabaseQueue(path: device.dbPath)
        defer { try? q.close() }
        let order = try await q.read { db in
            try String.fetchAll(db, sql: "SELECT record_kind FROM sync_log WHERE outcome = 'sent' ORDER BY seq")
        }
        #expect(order == ["sos", "confirmation", "confirmation", "draft", "draft", "trip", "trip", "trip", "trip"])
        try await device.verifyHub(hub)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func conflictIsQuarantinedWithItsReasonAndNotRetried() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let tripID = try await device.store.listDrafts()[0].tripID
        try await withClient(device, url: hub.url) { client in
            // Someone already stored a different trip under this device's id.
            let other = TripUpload(id: tripID, startUtcNs: nil, endUtcNs: nil, statistics: ValidationTests.stats)
            #expect(try await client.put(.trip(other), id: tripID).status == 201)
            #expect(try await client.put(.trip(other), id: tripID).status == 200, "identical again: success")
            let engine = try device.engine(client)
            #expect(await engine.syncOnce() == .drained(sent: 4, quarantined: 1))
            let d = try device.store.syncDiagnosis()
            #expect(d.quarantined.count == 1)
            #expect(d.quarantined[0].id == tripID && d.quarantined[0].reason.hasPrefix("409: conflict"))
            #expect(d.quarantined[0].reason.contains("hub holds sha256"))
            #expect(await engine.syncOnce() == .drained(sent: 0, quarantined: 0), "never retried silently")
            #expect(try device.store.syncDiagnosis().quarantined[0].attempts == 1)
            let held = try hub.records().first { $0.id == tripID }!
            #expect(try JSONDecoder().decode(TripUpload.self, from: held.body) == other, "the hub kept what it had")
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func invalidRecordIsQuarantinedTheRestGoes() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        var stats = ValidationTests.stats
        stats.avgMovingSpeed = 900
        let bad = String(
            decoding: try WireJSON.encode(TripUpload(id: "BAD-1", startUtcNs: nil, endUtcNs: nil, statistics: stats)), as: UTF8.self)
        try device.store.enqueueForSync(kind: .trip, id: "BAD-1", payload: bad)
        try device.store.enqueueForSync(kind: .trip, id: "bad/slash", payload: bad)
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let result = try await device.engine(client).syncOnce()
            #expect(result == .drained(sent: 5, quarantined: 2), "\(result)")
        }
        let q = try device.store.syncDiagnosis().quarantined
        #expect(q.first { $0.id == "BAD-1" }?.reason.contains("statistics.avg_moving_speed_mps") == true)
        #expect(q.first { $0.id == "bad/slash" }?.reason.hasPrefix("400") == true)
        try await device.verifyHub(hub)
    }

    /// An outbox row edited on the card ("dropped":true → false would publish a rider-dropped
    /// obstacle) is not sent: the upload refuses any record whose bytes differ from what the
    /// hash chain linked when it was queued.
    @Test(.timeLimitOnceRunning(.minutes(2))) func editedOutboxRecordIsRefusedBeforeUpload() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let id = try #require(try await device.store.listDrafts().first?.id)
        let obstacle = try #require(try await device.store.draft(id).obstacles.first?.id)
        try device.store.editDraft(id, .dropObstacle(obstacleID: obstacle))
        try device.store.confirmDraft(id)
        let q = try DatabaseQueue(path: device.dbPath)
        try await q.write { db in
            try db.execute(
                sql:
                    "UPDATE outbox SET payload = replace(payload, '\"dropped\":true', '\"dropped\":false') WHERE record_kind = 'confirmation'"
            )
            #expect(db.changesCount == 1)
        }
        try q.close()
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            _ = try await drain(device.engine(client))
        }
        #expect(!(try hub.records().contains { $0.kind == "confirmation" }), "the edited confirmation never left")
        let quarantined = try device.store.syncDiagnosis().quarantined
        #expect(quarantined.contains { $0.id == id && $0.reason.contains("changed after it was queued") }, "\(quarantined)")
    }

    /// Stored privacy settings that cannot be read send nothing: falling back to "no zones"
    /// would send positions inside the rider's zones.
    @Test(.timeLimitOnceRunning(.minutes(2))) func unreadablePrivacySettingsSendNothing() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        try device.store.setMetaValue(Store.privacyKey, "{\"zones\": 7}")
        await #expect(throws: StoreError.self) { try await SyncSettings.privacy(device.store) }
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let result = try await device.engine(client).syncOnce()
            guard case .failed(let reason, _) = result else {
                throw TestFailure(description: "sent with unreadable privacy settings: \(result)")
            }
            #expect("\(reason)".contains("sync.privacy") && "\(reason)".contains("cannot be read"), "\(reason)")
        }
        #expect(try hub.records().isEmpty, "nothing left the device")
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func badTokenStopsSyncing() async throws {
        let device = try await Device(trips: 2, seconds: 300)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        _ = FileManager.default.createFile(
            atPath: device.dir.file("wrong"), contents: Data("wrong-token-0123456789".utf8), attributes: [.posixPermissions: 0o600])
        let client = try HubClient(endpoint: HubEndpoint(baseURL: hub.url, token: try DeviceToken.read(path: device.dir.file("wrong"))))
        let engine = try device.engine(client)
        let result = await engine.syncOnce()
        let stopped = await engine.stoppedReason
        await client.shutdown()
        guard case .unauthorized(let reason) = result else { throw TestFailure(description: "a wrong token was accepted: \(result)") }
        #expect(reason.contains("bad-token") && stopped == reason)
        #expect(try hub.records().isEmpty)
        #expect(try device.store.syncDiagnosis().pending.values.reduce(0, +) > 0)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func retryAfterIsHonoured() async throws {
        let device = try await Device(trips: 2, seconds: 300)
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-busy-ratio", "1"])
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let engine = try device.engine(client)
            #expect(
                await engine.syncOnce()
                    == .failed(.hubAnswered(status: 503, detail: "busy: test-only fault: try again later"), retryAfterSeconds: 1))
            #expect(await engine.online == false)
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func editedDraftGoesAsANewRevision() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let draftID = try await device.store.listDrafts()[0].id
        try await withClient(device, url: hub.url) { client in
            let engine = try device.engine(client)
            try await drain(engine)
            try device.store.editDraft(draftID, .setPathStatus(.sufficient))
            try await drain(engine)
            let drafts = try hub.records().filter { $0.kind == "draft" && $0.id.hasPrefix(draftID) }.map(\.id).sorted()
            #expect(drafts == ["\(draftID)_r0", "\(draftID)_r1"])
            #expect(try device.store.syncDiagnosis().quarantined.isEmpty)
        }
    }

    @Test func unsentOlderDraftRevisionIsReplacedAndTripsCarryNoPositions() async throws {
        let device = try await Device(trips: 1, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let draftID = try await device.store.listDrafts()[0].id
        #expect(try await Queuer.queueNew(device.store, privacy: Device.privacy) == 2)
        #expect(try await Queuer.queueNew(device.store, privacy: Device.privacy) == 0, "queueing is idempotent")
        try device.store.editDraft(draftID, .setPathStatus(.medium))
        #expect(try await Queuer.queueNew(device.store, privacy: Device.privacy) == 1)
        let pending = try await device.store.outboxPending()
        #expect(pending.filter { $0.kind == .draft }.map(\.recordID) == ["\(draftID)_r1"])
        let trip = try #require(pending.first { $0.kind == .trip })
        #expect(!trip.payload.contains("lat") && !trip.payload.contains("path"))
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func livePositionIsLatestOnlyNeverQueued() async throws {
        let device = try await Device(trips: 1, seconds: 120, consent: Consent(tripsAndDrafts: false, sos: false, livePosition: true))
        defer { device.dir.cleanup() }
        let probe = try device.hub()
        let port = probe.port
        probe.stop()
        try await withClient(device, url: "http://127.0.0.1:\(port)") { client in
            let live = LivePositionPublisher(client: client, store: device.store, intervalSeconds: 1)
            func fix(_ i: Int, at c: Coordinate? = nil) -> GNSSFix {
                GNSSFix(
                    receivedAt: SampleTime(seconds: Double(i)),
                    time: UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + Int64(i) * 1_000_000_000),
                    mode: .threeD, latitude: c?.latitude ?? 52.52 + Double(i) * 1e-5, longitude: c?.longitude ?? 13.5, speed: 5)
            }
            #expect(await live.tick() == .notRiding)
            await live.setRiding(true)
            // Offline for a while: every tick fails and nothing piles up.
            for i in 0..<10 {
                await live.update(fix(i))
                if case .failed = await live.tick() {} else { Issue.record("tick \(i) should fail with the hub down") }
            }
            let hub = try device.hub(port: port)
            defer { hub.stop() }
            #expect(await live.tick() == .nothingNew, "a failed position is not sent again")
            await live.update(fix(3600))
            let sent = await live.tick()
            #expect(sent == .sent, "\(sent)")
            await live.update(fix(3601, at: Device.zone.center))
            #expect(await live.tick() == .insideZone)
            try SyncSettings.setConsent(device.store, .livePosition, false)
            await live.update(fix(3602))
            #expect(await live.tick() == .notAllowed)

            let q = try DatabaseQueue(
                path: device.hubDB,
                configuration: {
                    var c = Configuration(); c.readonly = true; return c
                }())
            defer { try? q.close() }
            let row = try q.read { db in
                try Row.fetchOne(db, sql: "SELECT body, updates FROM live_positions WHERE device_id = 'bike-1'")
            }
            #expect(row?["updates"] == 1)
            let body = try JSONDecoder().decode(LivePositionUpload.self, from: row?["body"] ?? Data())
            #expect(body.utcNs == Int64(1_790_003_600_000_000_000))
            #expect(try device.store.syncDiagnosis().pending.isEmpty, "live positions never enter the outbox")
        }
    }

    @Test func draftUploadLeavesOutDroppedObstaclesEditsAndTrimmedEnds() async throws {
        let device = try await Device(trips: 1, seconds: 600, confirm: 0)
        defer { device.dir.cleanup() }
        let draftID = try await device.store.listDrafts()[0].id
        let doc0 = try await device.store.draft(draftID)
        let dropped = doc0.obstacles[0].id
        try device.store.editDraft(draftID, .dropObstacle(obstacleID: dropped))
        let doc = try await device.store.draft(draftID)
        let up = UploadBuilder(privacy: Device.privacy).draft(doc)
        #expect(!up.obstacles.contains { $0.id == dropped })
        #expect(up.obstacles.count < doc.obstacles.count - 1, "the zone removes some obstacles too")
        #expect(up.path.count < doc.path.count)
        #expect(up.path.count > doc.path.count / 2)
        try await device.checkPrivacy(kind: "draft", body: try WireJSON.encode(up))
        let text = String(decoding: try WireJSON.encode(up), as: UTF8.self)
        #expect(!text.contains("edits") && !text.contains("drop"))
    }

    @Test("held-back candidates are not published; a confirmation queued before schema v3 still reads")
    func heldBackStayOnTheDevice() async throws {
        let device = try await Device(trips: 1, seconds: 600, confirm: 0)
        defer { device.dir.cleanup() }
        var doc = try await device.store.draft(try await device.store.listDrafts()[0].id)
        let all = UploadBuilder(privacy: Device.privacy).draft(doc).obstacles.map(\.id)
        try #require(all.count >= 2)
        let held = all[0]
        for i in doc.obstacles.indices where doc.obstacles[i].id == held { doc.obstacles[i].heldBack = true }
        #expect(UploadBuilder(privacy: Device.privacy).draft(doc).obstacles.map(\.id) == Array(all.dropFirst()))
        // An older payload has none of the review fields: it decodes as asked, unranked, unscored.
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(doc)) as! [String: Any]
        json["obstacles"] = (json["obstacles"] as! [[String: Any]]).map { o in
            o.filter { !["heldBack", "reviewRank", "severity", "confidence", "strength"].contains($0.key) }
        }
        let old = try JSONDecoder().decode(DraftDocument.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(old.obstacles.count == doc.obstacles.count)
        #expect(old.obstacles.allSatisfy { !$0.heldBack && $0.reviewRank == nil && $0.strength == 0 })
    }
}
