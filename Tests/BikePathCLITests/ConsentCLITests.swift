import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore
import BikePathDaemon

/// What the rider is told about consent and SOS is what sync does.
@Suite(.serialized, .ownThreads) struct ConsentCLITests {
    private let recording = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings/allthedocks-GX010056.bpr").path

    private func prepared() throws -> (binary: String, dir: TempDir, db: String) { try storeWithTwoRides() }

    private func write(_ text: String, _ path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Crash detection on with SOS sharing off (the old default) withheld every SOS
    /// while `config check` said the file was fine.
    @Test func configCheckRefusesCrashDetectionThatCouldNotSendAnSOS() throws {
        let (bin, dir, _) = try prepared()
        defer { dir.cleanup() }
        let noShare = try write(
            "[crash]\nenabled = true\n[privacy]\nshare_sos = false\n[sync]\nhub_url = \"https://hub.example.org\"\n", dir.file("a.toml"))
        let a = try runProcess(bin, ["config", "check", noShare])
        #expect(a.status == 78)
        #expect(a.err.contains("privacy.share_sos") && a.err.contains("crash.enabled"), "\(a.err)")
        let noHub = try write("[crash]\nenabled = true\n", dir.file("b.toml"))
        let b = try runProcess(bin, ["config", "check", noHub])
        #expect(b.status == 78)
        #expect(b.err.contains("crash.enabled") && b.err.contains("sync.hub_url"), "\(b.err)")
        let good = try write("[crash]\nenabled = true\n[sync]\nhub_url = \"https://hub.example.org\"\n", dir.file("c.toml"))
        #expect(try runProcess(bin, ["config", "check", good]).status == 0)
    }

    /// A draft confirmed while trip sharing was off stayed withheld after sharing
    /// was turned on, and `drafts confirm` said "queued for sync" all the same.
    @Test func confirmSaysWhereTheDraftGoesAndConsentOnSendsIt() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let config = try write("[sync]\nhub_url = \"http://127.0.0.1:1\"\n", dir.file("c.toml"))
        _ = FileManager.default.createFile(
            atPath: dir.file("token"), contents: Data("token-0123456789abcdef".utf8), attributes: [.posixPermissions: 0o600])
        let drafts = try #require(
            try json(try runProcess(bin, ["drafts", "list", "--db", db, "--json"]).out)["drafts"] as? [[String: Any]])
        let id = try #require(drafts.first?["id"] as? String)

        let confirm = try runProcess(bin, ["drafts", "confirm", id, "--db", db, "--config", config])
        #expect(confirm.status == 0)
        #expect(!confirm.out.contains("waiting to send"), "\(confirm.out)")
        #expect(confirm.out.contains("stays on this device") && confirm.out.contains("sync consent trips on"), "\(confirm.out)")

        // A sync pass with sharing off holds the confirmation back (nothing may go: drained) ...
        let pass = try runProcess(bin, ["sync", "--db", db, "--hub", "http://127.0.0.1:1", "--token-file", dir.file("token"), "--once"])
        #expect(pass.status == 0, "\(pass.err)")
        let before = try json(try runProcess(bin, ["sync", "status", "--db", db, "--json"]).out)
        #expect((before["withheld"] as? [String: Int])?["confirmation"] == 1, "\(before)")
        // ... and turning it on lets it go: consent means what it says.
        #expect(try runProcess(bin, ["sync", "consent", "trips", "on", "--db", db]).status == 0)
        let after = try json(try runProcess(bin, ["sync", "status", "--db", db, "--json"]).out)
        let sync = after
        #expect((sync["withheld"] as? [String: Int])?["confirmation"] == nil, "\(after)")
        #expect((sync["pending"] as? [String: Int])?["confirmation"] == 1, "\(after)")
        #expect((after["consent"] as? [String: Bool])?["trips"] == true)
        let text = try runProcess(bin, ["sync", "status", "--db", db])
        #expect(text.out.contains("consent (`bikepathd sync consent`): trips and drafts: on, sos: off"), "\(text.out)")

        let again = try runProcess(bin, ["drafts", "confirm", drafts[1]["id"] as! String, "--db", db, "--config", config])
        #expect(again.out.contains("confirmed and waiting to send"), "\(again.out)")
    }

    /// `run` turned the rider's consent off again because the file's default
    /// (share_trips = false) overrode it; a key written as false is a ceiling
    /// the rider is told about.
    @Test(.timeLimitOnceRunning(.minutes(2))) func runKeepsTheRidersConsentAndTheFileOnlyForbids() async throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        #expect(try await runProcess(bin, ["sync", "consent", "trips", "on", "--db", db]).status == 0)
        let config = try write(
            """
            [store]
            path = "\(db)"
            [sync]
            hub_url = "http://127.0.0.1:1"
            token_file = "\(dir.file("no-token"))"
            [status]
            socket = "\(dir.file("status.sock"))"
            """, dir.file("c.toml"))
        let run = try await runProcess(bin, ["run", "--config", config, "--replay", recording])
        #expect(run.status == 0, "\(run.err)")
        let store = try Store.open(path: db)
        #expect(try await store.consent().tripsAndDrafts, "run must not undo the rider's consent")
        try store.close()

        // A file that forbids trips keeps them on the device while the key stays, and
        // leaves the rider's switch as the rider set it: remove the key and it is in force.
        let forbidding = try write(
            """
            [store]
            path = "\(db)"
            [status]
            socket = "\(dir.file("status.sock"))"
            [privacy]
            share_trips = false
            """, dir.file("f.toml"))
        #expect(try await runProcess(bin, ["run", "--config", forbidding, "--replay", recording]).status == 0)
        let held = try Store.open(path: db)
        #expect(try await held.consent().tripsAndDrafts, "run with share_trips = false must not rewrite the rider's consent")
        #expect(try await !held.effectiveConsent().tripsAndDrafts, "but nothing of trips may leave while the file forbids it")
        try held.close()
        #expect(try await runProcess(bin, ["run", "--config", config, "--replay", recording]).status == 0)
        let released = try Store.open(path: db)
        #expect(try await released.effectiveConsent().tripsAndDrafts, "the key removed, the rider's consent is in force again")
        try released.close()

        #expect(try await runProcess(bin, ["sync", "consent", "trips", "off", "--db", db]).status == 0)
        let refused = try await runProcess(bin, ["sync", "consent", "trips", "on", "--db", db, "--config", forbidding])
        #expect(refused.status == 1)
        #expect(refused.err.contains("privacy.share_trips is false"), "\(refused.err)")
    }

    /// Consent changes only by the rider's command: crash detection does not turn SOS sharing
    /// on at `run`'s start (which would undo `sync consent sos off` behind the rider's back),
    /// and an SOS that would stay on the device is said, not "fixed".
    @Test(.timeLimitOnceRunning(.minutes(2))) func crashDetectionNeverTurnsSOSSharingOnAndSaysAnSOSWouldStay() async throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let config = try write(
            """
            [store]
            path = "\(db)"
            [crash]
            enabled = true
            [sync]
            hub_url = "http://127.0.0.1:1"
            token_file = "\(dir.file("no-token"))"
            [status]
            socket = "\(dir.file("status.sock"))"
            """, dir.file("c.toml"))
        let stays = "an SOS would stay on this device"
        #expect(try await runProcess(bin, ["sync", "consent", "sos", "on", "--db", db]).status == 0)
        let off = try await runProcess(bin, ["sync", "consent", "sos", "off", "--db", db, "--config", config])
        #expect(off.status == 0, "the rider's own command: \(off.err)")
        #expect(off.err.contains(stays), "\(off.err)")
        let check = try await runProcess(bin, ["config", "check", config])
        #expect(check.status == 0 && check.err.contains(stays), "\(check.out) \(check.err)")

        let run = try await runProcess(bin, ["run", "--config", config, "--replay", recording])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.err.contains(stays), "run's log says it: \(run.err)")
        let store = try Store.open(path: db)
        #expect(try await !store.consent().sos, "run must not turn SOS sharing on")
        try store.close()

        let diagnose = try await runProcess(
            bin,
            [
                "diagnose", "--config", config, "--duration", "0.5", "--gpsd-port", "1",
                "--iio-uri", "ip:127.0.0.1:1", "--require", "none",
            ])
        #expect(diagnose.status == 3, "a sync problem: \(diagnose.out)")
        #expect(diagnose.out.contains(stays), "\(diagnose.out)")
    }

    /// A withheld SOS is an error in `diagnose` (and `status`, from the same list).
    @Test func withheldSOSIsAProblem() throws {
        let (bin, dir, db) = try prepared()
        defer { dir.cleanup() }
        let store = try Store.open(path: db)
        let sos = try store.count("SELECT COUNT(*) FROM outbox WHERE record_kind = 'sos'")
        #expect(sos >= 1, "the synthetic rides raise an SOS")
        #expect(try store.diagnostics().problems.contains { $0.contains("\(sos) SOS message(s) withheld") })
        try store.close()
        let diagnose = try runProcess(
            bin, ["diagnose", "--db", db, "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1"])
        #expect(diagnose.out.contains("SOS message(s) withheld"), "\(diagnose.out)")
    }
}
