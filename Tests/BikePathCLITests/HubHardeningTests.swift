import BikePathDeviceTestSupport
import BikePathStore
import BikePathTestSupport
import Foundation
import Testing

/// The device's side of an adversarial pass: `bikepathd sync` with a token it cannot send.
/// (The hub's side, against its process on loopback: BikePathHubTests.)
@Suite(.serialized, .ownThreads) struct HubHardeningTests {
    @Test(.timeLimitOnceRunning(.minutes(2))) func aControlByteInTheDeviceTokenIsAConfigurationError() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let bikepathd = try #require(builtExecutable("bikepathd"))
        let file = device.dir.file("bad-token")
        _ = FileManager.default.createFile(
            atPath: file, contents: Data("secret-token\u{01}value-0123\n".utf8), attributes: [.posixPermissions: 0o600])
        let sync = try await runProcess(bikepathd, ["sync", "--db", device.dbPath, "--hub", hub.url, "--token-file", file, "--once"])
        #expect(sync.status == 1, "exit \(sync.status): a bad token is a configuration error, not a hub failure (3)")
        #expect(sync.err.contains("character 13 of the token") && sync.err.contains("0x1"), "\(sync.err)")
        let status = try await runProcess(bikepathd, ["sync", "status", "--db", device.dbPath])
        for text in [sync.out, sync.err, status.out, status.err] {
            #expect(!text.contains("secret-token") && !text.contains("value-0123"))
        }
        #expect(try device.store.syncDiagnosis().recentLog.isEmpty, "nothing was attempted")
    }
}
