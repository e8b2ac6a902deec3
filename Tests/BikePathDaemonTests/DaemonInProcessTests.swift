import BikePathCore
import BikePathSensors
import BikePathStore
import BikePathTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathDaemon

/// `bikepathd run` assembled in process (`Daemon.make`), with a recording as its
/// source and a temporary store: what the executable does, without a process.
@Suite("the daemon as a library", .serialized, .timeLimitOnceRunning(.minutes(3)), .ownThreads)
struct DaemonInProcessTests {
    static let ride = Repository.root.appendingPathComponent("Recordings/allthedocks-GX010056.bpr").path
    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func configuration(_ dir: TempDir) throws -> DaemonConfiguration {
        try DaemonConfiguration().merging(
            ConfigurationOverrides(
                storePath: dir.file("store.db"),
                statusSocket: dir.file("status.sock")))
    }

    static func make(_ configuration: DaemonConfiguration, input: DaemonInputKind) async throws -> Daemon {
        try await Daemon.make(
            configuration: configuration, input: input, version: "test",
            reload: { () throws(ConfigurationError) in configuration }, logger: quiet)
    }

    static func recordCount(_ path: String) throws -> Int {
        let reader = try RecordingReader(path: path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        return count
    }

    @Test("a recording runs to its end: its trip is stored, closed and becomes a draft; everything is committed")
    func recordingToTheEnd() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let configuration = try Self.configuration(dir)
        let daemon = try await Self.make(configuration, input: .recording(path: Self.ride, speed: nil))
        let report = try await daemon.run(logger: Self.quiet)
        #expect(report.inputFailure == nil)
        #expect(report.everythingCommitted)
        #expect(report.summary.records == (try Self.recordCount(Self.ride)), "every record of the ride went through")
        #expect(report.summary.tripsEnded == 1)
        #expect(try daemon.store.openTripInfo() == nil, "the recording ended, so did its trip")
        #expect(try await daemon.store.listDrafts().count == 1)
        #expect(!FileManager.default.fileExists(atPath: configuration.status.socket), "the status socket is removed at the end")
    }

    @Test("a second daemon on the same status socket is refused before it writes anything")
    func secondDaemonRefused() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let configuration = try Self.configuration(dir)
        let first = try await Self.make(configuration, input: .recording(path: Self.ride, speed: 1))
        let group = first.makeServiceGroup(logger: Self.quiet)
        let running = Task { try await group.run() }
        #expect(await waitUntil { FileManager.default.fileExists(atPath: configuration.status.socket) })
        await #expect(throws: DaemonStartError.self) { try await Self.make(configuration, input: .recording(path: Self.ride, speed: nil)) }
        await group.triggerGracefulShutdown()
        try await running.value
    }

    /// With crash detection on and SOS sharing off, the consent stays as the rider left it
    /// and `status` says an SOS would stay on the device.
    @Test("crash detection with SOS sharing off: consent untouched, status degraded and saying why")
    func crashDetectionWithSOSSharingOffIsReportedNotChanged() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var configuration = try Self.configuration(dir)
        configuration.crash.enabled = true
        configuration.sync.hubURL = "http://127.0.0.1:1"
        configuration.sync.tokenFile = dir.file("no-token")
        let daemon = try await Self.make(configuration, input: .recording(path: Self.ride, speed: 1))
        let group = daemon.makeServiceGroup(logger: Self.quiet)
        let running = Task { try await group.run() }
        #expect(await waitUntil { FileManager.default.fileExists(atPath: configuration.status.socket) })
        let status = try StatusClient.fetchStatus(path: configuration.status.socket)
        #expect(status.degraded.contains { $0.contains("an SOS would stay on this device") }, "\(status.degraded)")
        #expect(try await !daemon.store.consent().sos, "the rider's consent is the rider's")
        await group.triggerGracefulShutdown()
        try await running.value
    }

    @Test("a recording that cannot be read is refused before the store is opened")
    func unreadableRecording() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let configuration = try Self.configuration(dir)
        try Data("not a recording".utf8).write(to: URL(fileURLWithPath: dir.file("bad.bpr")))
        await #expect {
            try await Self.make(configuration, input: .recording(path: dir.file("bad.bpr"), speed: nil))
        } throws: { error in
            guard case DaemonStartError.unreadableInput = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: configuration.store.path), "no store created")
    }
}
