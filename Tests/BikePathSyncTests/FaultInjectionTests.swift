import BikePathAPI
import BikePathCore
import BikePathStore
import BikePathSync
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

/// Every fault against the real hub on loopback, then the hub
/// holds exactly what the device meant to send (`Device.verifyHub`).
@Suite(.serialized, .ownThreads) struct FaultInjectionTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func hubDownAtStart() async throws {
        let device = try await Device()
        defer { device.dir.cleanup() }
        let probe = try device.hub()
        let port = probe.port
        probe.stop()
        try await withClient(device, url: "http://127.0.0.1:\(port)") { client in
            let engine = try device.engine(client)
            guard case .failed(let reason, _) = await engine.syncOnce() else {
                throw TestFailure(description: "sync succeeded with the hub down")
            }
            #expect(reason.description.contains("unreachable"))
            #expect(await engine.online == false)
            #expect(try device.store.syncDiagnosis().recentLog.first?.outcome == "failed")
            let hub = try device.hub(port: port)
            defer { hub.stop() }
            try await drain(engine)
            #expect(await engine.online)
            try await device.verifyHub(hub)
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func randomServerErrors() async throws {
        let device = try await Device()
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-fail-ratio", "0.5", "--test-seed", "11"])
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let passes = try await drain(device.engine(client, batchSize: 2))
            #expect(passes > 1, "with half the requests failing, one pass cannot drain")
            try await device.verifyHub(hub)
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func slowPastTheTimeout() async throws {
        let device = try await Device()
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-delay-ratio", "0.5", "--test-delay-ms", "1500", "--test-seed", "5"])
        defer { hub.stop() }
        try await withClient(device, timeout: 0.5, url: hub.url) { client in
            let passes = try await drain(device.engine(client, batchSize: 3))
            #expect(passes > 1)
            // Requests the client gave up on still commit late on the hub: let them land, then check.
            try await Task.sleep(for: .seconds(2))
            try await device.verifyHub(hub)
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func hubCommitsThenDropsTheConnection() async throws {
        let device = try await Device()
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-drop-after-commit-ratio", "0.5", "--test-seed", "3"])
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let passes = try await drain(device.engine(client, batchSize: 2))
            #expect(passes > 1)
            try await device.verifyHub(hub)
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(3))) func clientKilledMidUpload() async throws {
        guard let bikepathd = builtExecutable("bikepathd") else { throw TestFailure(description: "bikepathd is not built") }
        // 8 trips, 8 drafts confirmed: about 24 records at 300 ms each (7 s) against
        // 3 s of rounds, so the client is always killed mid-work (with 150 ms and 4
        // confirmed it sometimes finished on an idle machine).
        let device = try await Device(trips: 8, seconds: 300, confirm: 8)
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-delay-ratio", "1", "--test-delay-ms", "300"])
        defer { hub.stop() }
        let arguments = ["sync", "--db", device.dbPath, "--hub", hub.url, "--token-file", device.tokenFile, "--batch-size", "1"]
        for round in 0..<4 {
            let client = try ChildProcess(bikepathd, arguments)
            try await Task.sleep(for: .milliseconds(600 + 100 * round))
            client.stop(signal: SIGKILL)
            #expect(client.waitForExit() == 128 + SIGKILL, "the client was killed mid-work, not finished")
        }
        let midway = try hub.records().count
        #expect(midway > 0, "the killed client had sent something")
        #expect(try device.store.syncDiagnosis().pending.values.reduce(0, +) > 0, "and was killed before it finished")
        let final = try await runProcess(bikepathd, arguments + ["--once"])
        #expect(final.status == 0, "\(final.err)")
        try await device.verifyHub(hub)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func hubRestarts() async throws {
        let device = try await Device(trips: 6, seconds: 300, confirm: 3)
        defer { device.dir.cleanup() }
        var hub = try device.hub(extra: ["--test-delay-ratio", "1", "--test-delay-ms", "200"])
        let port = hub.port
        try await withClient(device, url: hub.url) { client in
            let engine = try device.engine(client, batchSize: 1)
            let task = Task { await engine.run() }
            try await Task.sleep(for: .milliseconds(700))
            hub.kill()
            let before = try hub.records().count
            #expect(before > 0)
            try await Task.sleep(for: .milliseconds(500))
            hub = try device.hub(port: port)
            engine.networkChanged()
            let deadline = Date().addingTimeInterval(60)
            while try device.store.syncDiagnosis().pending.values.reduce(0, +) > 0, Date() < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
            task.cancel()
            #expect(await engine.online)
        }
        defer { hub.stop() }
        try await device.verifyHub(hub)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func tokenRevoked() async throws {
        let device = try await Device(consent: Consent(tripsAndDrafts: true, sos: false))
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        guard let hubExe = builtExecutable("bikepath-hub") else { throw TestFailure(description: "bikepath-hub is not built") }
        try await withClient(device, url: hub.url) { client in
            let engine = try device.engine(client)
            try await drain(engine)
            try await device.verifyHub(hub, consent: Consent(tripsAndDrafts: true, sos: false))

            let revoked = try await runProcess(hubExe, ["token", "revoke", "--db", device.hubDB, "--device", "bike-1"])
            #expect(revoked.status == 0, "\(revoked.err)")
            // New work after the revocation: the rider allows SOS and releases the withheld one.
            try SyncSettings.setConsent(device.store, .sos, true)
            try device.store.releaseWithheld(kinds: [.sos])
            guard case .unauthorized(let reason) = await engine.syncOnce() else {
                throw TestFailure(description: "a revoked token was accepted")
            }
            #expect(reason.contains("token-revoked"))
            #expect(!reason.contains(Device.token))
            let requests = client.wire.requests
            guard case .unauthorized = await engine.syncOnce() else { throw TestFailure(description: "sync went on after a 401") }
            #expect(client.wire.requests == requests, "no request after a 401")
            #expect(try device.store.syncDiagnosis().recentLog.first?.outcome == "unauthorized")
            #expect(try device.store.syncDiagnosis().pending["sos"] == 1, "the SOS stays queued")
        }
        // The fault stops: the operator issues a new token, the device restarts sync with it.
        let newToken = device.dir.file("token2")
        _ = FileManager.default.createFile(
            atPath: newToken, contents: Data("second-token-0123456789".utf8), attributes: [.posixPermissions: 0o600])
        #expect(
            try await runProcess(hubExe, ["token", "add", "--db", device.hubDB, "--device", "bike-1", "--token-file", newToken]).status == 0
        )
        let client = try HubClient(endpoint: HubEndpoint(baseURL: hub.url, token: try DeviceToken.read(path: newToken)))
        let result = try await device.engine(client).syncOnce()
        await client.shutdown()
        #expect(result == .drained(sent: 1, quarantined: 0))
        try await device.verifyHub(hub)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func consentOffStopsTheStreamAtOnce() async throws {
        let device = try await Device(trips: 6, seconds: 300, confirm: 3)
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--test-delay-ratio", "1", "--test-delay-ms", "250"])
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            let engine = try device.engine(client, batchSize: 1)
            let task = Task { await engine.run() }
            let deadline = Date().addingTimeInterval(30)
            while try hub.records().count < 3, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
            try SyncSettings.setConsent(device.store, .tripsAndDrafts, false)
            let atSwitch = try hub.records().count
            try await Task.sleep(for: .milliseconds(1500))
            task.cancel()
            let after = try hub.records()
            #expect(after.count <= atSwitch + 1, "at most the request already in flight")
            let d = try device.store.syncDiagnosis()
            #expect(d.pending.isEmpty)
            let withheld = d.withheld.values.reduce(0, +)
            #expect(withheld > 0)
            // Everything of the stream is either on the hub or withheld on the device.
            let meant = try await device.expected(consent: Consent(tripsAndDrafts: true, sos: true))
            #expect(after.count + withheld == meant.count)
            for r in after { try await device.checkPrivacy(kind: r.kind, body: r.body) }
        }
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func sosConsentOffKeepsSOSOnTheDevice() async throws {
        let consent = Consent(tripsAndDrafts: true, sos: false)
        let device = try await Device(consent: consent)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        try await withClient(device, url: hub.url) { client in
            try await drain(device.engine(client))
            try await device.verifyHub(hub, consent: consent)
            #expect(!(try hub.records().contains { $0.kind == "sos" }))
            #expect(try device.store.syncDiagnosis().withheld["sos"] == 1)
        }
    }

    /// `privacy.share_trips = false` does not turn the rider's consent off in the store: it is
    /// recorded apart and only holds the stream back while it stands.
    @Test(.timeLimitOnceRunning(.minutes(2))) func aFileThatForbidsTripsHoldsThemWithoutTouchingConsent() async throws {
        let consent = Consent(tripsAndDrafts: true, sos: true)
        let device = try await Device(consent: consent)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        try device.store.setFileForbids([.tripsAndDrafts])
        try await withClient(device, url: hub.url) { client in
            try await drain(device.engine(client))
            let held = try hub.records()
            #expect(held.contains { $0.kind == "sos" } && held.allSatisfy { $0.kind == "sos" }, "\(held.map(\.kind))")
            #expect(try device.store.syncDiagnosis().withheld["confirmation", default: 0] > 0, "the confirmed drafts wait on the device")
            #expect(try await device.store.consent() == consent, "the rider's switches are as the rider set them")

            try device.store.setFileForbids([])
            try await drain(device.engine(client))
            try await device.verifyHub(hub, consent: consent)
        }
    }
}
