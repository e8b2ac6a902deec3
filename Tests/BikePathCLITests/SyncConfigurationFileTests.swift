import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

/// Every command that talks to the hub reads `sync.hub_url`, `sync.token_file` and
/// `sync.ca_file` from the configuration (`--config`), and a flag overrides one key: a
/// file that names the hub and the token needs no `--hub`.
@Suite(.serialized, .ownThreads) struct SyncConfigurationFileTests {
    private func write(_ text: String, _ path: String) throws -> String {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func syncOnceTakesTheHubAndTokenFromTheConfigurationFile() async throws {
        let device = try await Device(trips: 2, seconds: 300, confirm: 1)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        // No --db, no --hub, no --token-file: the store, the hub and the token all come from the file.
        let config = try write(
            """
            [store]
            path = "\(device.dbPath)"
            [sync]
            hub_url = "\(hub.url)"
            token_file = "\(device.tokenFile)"
            """, device.dir.file("bikepathd.toml"))
        let sync = try await runProcess(bikepathd, ["sync", "run", "--once", "--config", config])
        #expect(sync.status == 0, "exit \(sync.status): \(sync.err)")
        try await device.verifyHub(hub)
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func aFlagOverridesTheFilesKeyAndNoHubAnywhereIsAUsageError() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        // The file's hub is nobody (port 1 refuses at once: a failed pass, exit 3) ...
        let config = try write(
            """
            [sync]
            hub_url = "http://127.0.0.1:1"
            token_file = "\(device.tokenFile)"
            """, device.dir.file("bikepathd.toml"))
        let fromFile = try await runProcess(bikepathd, ["sync", "--once", "--db", device.dbPath, "--config", config])
        #expect(fromFile.status == 3, "exit \(fromFile.status): \(fromFile.err)")
        // ... and --hub wins over sync.hub_url: the real hub gets everything.
        let overridden = try await runProcess(bikepathd, ["sync", "--once", "--db", device.dbPath, "--config", config, "--hub", hub.url])
        #expect(overridden.status == 0, "exit \(overridden.status): \(overridden.err)")
        try await device.verifyHub(hub)
        let empty = try write("", device.dir.file("empty.toml"))
        let none = try await runProcess(bikepathd, ["sync", "--once", "--db", device.dbPath, "--config", empty])
        #expect(none.status == 64, "exit \(none.status): \(none.err)")
        #expect(none.err.contains("sync.hub_url"), "\(none.err)")
    }

    @Test func aBatchSizeOutsideWhatTheHubTakesIsAUsageError() throws {
        let bikepathd = try #require(builtExecutable("bikepathd"))
        for size in ["0", "1001"] {
            let refused = try runProcess(bikepathd, ["sync", "run", "--once", "--hub", "http://127.0.0.1:1", "--batch-size", size])
            #expect(refused.status == 64, "--batch-size \(size): exit \(refused.status): \(refused.err)")
            #expect(refused.err.contains("--batch-size: a batch of \(size) records: it must be 1 to 1000"), "\(refused.err)")
        }
    }
}
