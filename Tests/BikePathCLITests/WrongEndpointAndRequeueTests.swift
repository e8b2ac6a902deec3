import BikePathAPI
import BikePathDeviceTestSupport
import BikePathStore
import BikePathSync
import BikePathTestSupport
import Foundation
import Testing

/// A wrong hub URL (404/405 for the endpoint) is a configuration error: `bikepathd
/// sync` stops and says so, and nothing is quarantined. Quarantined records can be put
/// back with `bikepathd sync requeue`. (The sync engine's side: BikePathSyncTests.)
@Suite(.serialized, .ownThreads) struct WrongEndpointAndRequeueTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func syncOnceExitsFiveOnAWrongURL() async throws {
        let device = try await Device(trips: 1, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        let run = try await runProcess(
            bikepathd,
            [
                "sync", "run", "--db", device.dbPath, "--hub", hub.url + "/typo",
                "--token-file", device.tokenFile, "--once",
            ])
        #expect(run.status == 5, "\(run.err)")
        #expect(run.err.contains("check the hub URL"), "\(run.err)")
        #expect(try device.store.syncDiagnosis().quarantined.isEmpty)
    }

    /// Without libcurl (a build from source on a machine that lacks it, a package forced in
    /// without its Depends:), sync says what to install and fails the pass (exit 3, tried
    /// again later); nothing leaves the outbox. libcurl is hidden in a mount namespace of the
    /// command's own, where its file reads as /dev/null (dlopen: "file too short").
    @Test(
        .enabled(if: RealDaemons.shouldRun(["unshare"], needsRoot: true), "needs root and unshare (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(2)))
    func withoutLibcurlSyncSaysWhatToInstall() async throws {
        guard RealDaemons.check(["unshare"], needsRoot: true) else { return }
        let library = try #require(
            ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"].map { $0 + "/libcurl.so.4" }
                .first { FileManager.default.fileExists(atPath: $0) }, "libcurl.so.4 is not installed")
        let device = try await Device(trips: 1, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        let pending = try device.store.syncDiagnosis().pending.values.reduce(0, +)
        #expect(pending > 0)
        let run = try await runProcess(
            "/usr/bin/unshare",
            [
                "-m", "/bin/sh", "-c", #"mount --bind /dev/null "$0" && exec "$@""#, library,
                bikepathd, "sync", "run", "--db", device.dbPath, "--hub", hub.url, "--token-file", device.tokenFile, "--once",
            ])
        #expect(run.status == 3, "\(run.err)")
        #expect(run.err.contains("cannot load libcurl.so.4 (install libcurl4t64)"), "\(run.err)")
        let after = try device.store.syncDiagnosis()
        #expect(after.pending.values.reduce(0, +) >= pending, "nothing left the outbox")
        #expect(after.quarantined.isEmpty)
        #expect(try hub.records().isEmpty)
    }

    /// A proxy, captive portal or WAF answers where the hub should: its 4xx/3xx is no
    /// verdict on a record. Nothing is quarantined, the SOS stays first in line, and
    /// `sync run --once` fails (exit 3, retried later) instead of saying "drained".
    @Test(.timeLimitOnceRunning(.minutes(2)), arguments: [400, 403, 410, 422, 301, 200])
    func notTheHubQuarantinesNothing(status: Int) async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        let output = device.dir.file("portal.out")
        let portal = try ChildProcess(
            "/usr/bin/python3", [Paths.root + "/Tests/Harness/not_a_hub.py", "\(status)"],
            output: URL(fileURLWithPath: output))
        defer { portal.stop(signal: SIGKILL) }
        var port = ""
        #expect(
            await waitUntil {
                port = (try? String(contentsOfFile: output, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                return Int(port) != nil
            }, "the stand-in server printed its port")
        let pendingBefore = try device.store.syncDiagnosis().pending
        let bikepathd = try #require(builtExecutable("bikepathd"))
        let run = try await runProcess(
            bikepathd,
            [
                "sync", "run", "--db", device.dbPath, "--hub", "http://127.0.0.1:\(port)",
                "--token-file", device.tokenFile, "--once",
            ])
        #expect(run.status == 3, "\(status): rc \(run.status) \(run.out) \(run.err)")
        #expect(run.err.contains("not in the hub's contract") || run.err.contains("could not be read"), "\(run.err)")
        let after = try device.store.syncDiagnosis()
        #expect(after.quarantined.isEmpty, "\(status) from a stand-in quarantined \(after.quarantined)")
        #expect(after.pending["sos"] == pendingBefore["sos"] && after.pending["sos"] == 1, "the SOS still waits: \(after.pending)")
        #expect(after.pending.values.reduce(0, +) >= pendingBefore.values.reduce(0, +), "nothing left the queue: \(after.pending)")
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func requeueReleasesQuarantinedRecordsAndRefusesWrongIDs() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let trips = try await device.store.listDrafts().map(\.tripID)
        let stats = TripStatisticsUpload(
            distanceM: 1000, elapsedS: 300, movingS: 290, avgMovingSpeed: 3.4, maxSpeed: 7, elevationGainM: 3, co2AvoidedG: 120)
        try await withClient(device, url: hub.url) { client in
            // The hub holds different trips under both ids: both are quarantined (409).
            for id in trips {
                let other = TripUpload(id: id, startUtcNs: nil, endUtcNs: nil, statistics: stats)
                #expect(try await client.put(.trip(other), id: id).status == 201)
            }
            _ = try await drain(device.engine(client))
        }
        #expect(Set(try device.store.syncDiagnosis().quarantined.map(\.id)) == Set(trips))

        let bikepathd = try #require(builtExecutable("bikepathd"))
        func requeue(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
            try await runProcess(bikepathd, ["sync", "requeue", "--db", device.dbPath] + arguments)
        }
        let missing = try await requeue(["NO-SUCH-ID"])
        #expect(missing.status != 0 && missing.err.contains("no record with id NO-SUCH-ID"), "\(missing.err)")
        let sentID = try #require(device.store.syncLog().first { $0.outcome == "sent" }?.recordID)
        let notQuarantined = try await requeue([sentID])
        #expect(notQuarantined.status != 0 && notQuarantined.err.contains("not quarantined"), "\(notQuarantined.err)")
        #expect(try await requeue([]).status != 0, "an id or --all is required")

        let one = try await requeue([trips[0]])
        #expect(one.status == 0 && one.out.contains("requeued 1"), "\(one.err)")
        #expect(try device.store.syncDiagnosis().quarantined.map(\.id) == [trips[1]])
        let all = try await requeue(["--all", "--json"])
        #expect(all.status == 0 && all.out.contains("\"requeued\" : 1"), "\(all.out) \(all.err)")
        #expect(try device.store.syncDiagnosis().quarantined.isEmpty)
        #expect(try await device.store.outboxPending().contains { $0.recordID == trips[0] && $0.attempts == 0 })
        #expect(try device.store.syncLog().contains { $0.outcome == "requeued" && $0.recordID == trips[1] })
    }
}
