import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathDaemon
import Synchronization

/// `bikepathd run` as a process, driven by signals the way systemd drives it:
/// READY=1, SIGHUP reload without a stop, SIGINT/SIGTERM stop with STOPPING=1
/// and everything committed. (A replay that ends by itself: `ReplayRunTests`.)
@Suite("bikepathd run: lifecycle through signals", .serialized, .timeLimitOnceRunning(.minutes(2)), .ownThreads)
struct DaemonLifecycleRunTests {
    @Test("SIGHUP reloads (RELOADING=1, READY=1) and the daemon runs on; SIGTERM: STOPPING=1, exit 0 within 2 s")
    func reloadThenStop() async throws {
        let run = try DaemonRun()
        defer { run.cleanup() }
        let daemon = try run.start(["run", "--config", run.config])
        defer { daemon.stop(signal: SIGKILL) }
        #expect(await run.waitForMessage("READY=1\nSTATUS=running"), "READY=1: \(run.messages) \(run.log)")

        try run.writeConfig(extra: "[trip]\nend_after_s = 60\n")
        kill(daemon.pid, SIGHUP)
        #expect(await run.waitForMessage("RELOADING=1"), "\(run.messages)")
        #expect(
            await waitUntil {
                let m = run.messages
                return m.firstIndex(of: "RELOADING=1").map { m[($0 + 1)...].contains("READY=1\nSTATUS=running") } ?? false
            }, "READY=1 after the reload: \(run.messages)")
        #expect(run.log.contains("configuration reloaded: chain settings"), "\(run.log)")
        #expect(daemon.waitForExit(timeout: 0.5) == nil, "SIGHUP does not stop the daemon")
        #expect((try? StatusClient.fetchStatus(path: run.socket)) != nil, "still answering after the reload")
        #expect(!run.messages.contains("STOPPING=1"))

        kill(daemon.pid, SIGTERM)
        #expect(daemon.waitForExit(timeout: 2) == 0, "SIGTERM: exit 0 within 2 s \(run.log)")
        #expect(run.messages.contains("STOPPING=1"))
        #expect(run.log.contains("stopped; everything committed"), "\(run.log)")
        #expect(!FileManager.default.fileExists(atPath: run.socket), "the status socket is removed at the end")
    }

    @Test("SIGHUP with a file the TOML library would abort on: refused, the daemon runs on")
    func reloadAbortingFile() async throws {
        let run = try DaemonRun()
        defer { run.cleanup() }
        let daemon = try run.start(["run", "--config", run.config])
        defer { daemon.stop(signal: SIGKILL) }
        #expect(await run.waitForMessage("READY=1\nSTATUS=running"), "READY=1: \(run.messages) \(run.log)")
        try run.writeConfig(extra: "[é]\n")
        kill(daemon.pid, SIGHUP)
        #expect(await waitUntil { run.log.contains("(syntax)") }, "the refusal is logged: \(run.log)")
        #expect(daemon.waitForExit(timeout: 0.5) == nil, "still running: \(run.log)")
        #expect((try? StatusClient.fetchStatus(path: run.socket)) != nil, "still answering after the refused reload")
        kill(daemon.pid, SIGTERM)
        #expect(daemon.waitForExit(timeout: 2) == 0, "\(run.log)")
    }

    @Test("SIGINT mid-ride: exit 0 within 2 s with every track point the chain kept committed")
    func interruptMidRide() async throws {
        let run = try DaemonRun()
        defer { run.cleanup() }
        // Periodic commits at most once a minute of ride time: up to sixty kept
        // points wait for the shutdown's own commit.
        try run.writeConfig(store: "commit_interval_s = 60")
        // The real 9-minute ride at 5 × real time (108 s: room for a starved test
        // process on 2 cores to see it riding): the signal comes mid-ride, with the
        // pipeline writing.
        let ride = Paths.root + "/Recordings/allthedocks-GX010056.bpr"
        let daemon = try run.start(["run", "--config", run.config, "--replay", ride, "--replay-speed", "5", "--summary"])
        defer { daemon.stop(signal: SIGKILL) }
        #expect(await run.waitForMessage("READY=1\nSTATUS=running"), "\(run.log)")
        #expect(await waitUntil { (try? StatusClient.fetchStatus(path: run.socket))?.trip.state == "riding" })
        kill(daemon.pid, SIGINT)
        #expect(daemon.waitForExit(timeout: 2) == 0, "SIGINT: exit 0 within 2 s \(run.log)")
        #expect(run.messages.contains("STOPPING=1"))
        #expect(run.log.contains("stopped; everything committed"))

        let summary = try #require(run.summary, "the --summary JSON: \(run.log)")
        let stored = try await runProcess("/usr/bin/sqlite3", [run.store, "SELECT count(*) FROM track_points;"])
        #expect(summary.trackPoints > 0)
        #expect(
            Int(stored.out.trimmingCharacters(in: .whitespacesAndNewlines)) == summary.trackPoints,
            "stored \(stored.out) of \(summary.trackPoints) track points")
    }
}

/// One daemon's files (config, store, status socket, log) and its NOTIFY_SOCKET.
final class DaemonRun: @unchecked Sendable {
    let directory: TempDir
    let notify: NotifySocket
    private let received = Mutex<[String]>([])

    init() throws {
        directory = try TempDir()
        notify = try NotifySocket()
        try writeConfig()
    }

    var config: String { directory.file("bikepathd.toml") }
    var store: String { directory.file("store.sqlite") }
    var socket: String { directory.file("status.sock") }
    var log: String { (try? String(contentsOfFile: directory.file("log"), encoding: .utf8)) ?? "" }

    /// No gpsd and no IMU (port 1 refuses): live runs are degraded, which is fine here.
    func writeConfig(store storeKeys: String = "", extra: String = "") throws {
        try """
        [gnss]
        host = "127.0.0.1"
        port = 1
        [imu]
        uri = "ip:127.0.0.1:1"
        [store]
        path = "\(store)"
        \(storeKeys)
        [status]
        socket = "\(socket)"
        \(extra)
        """.write(toFile: config, atomically: true, encoding: .utf8)
    }

    func start(_ arguments: [String]) throws -> ChildProcess {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        return try ChildProcess(
            "/usr/bin/env", ["NOTIFY_SOCKET=\(notify.name)", bikepathd] + arguments,
            output: URL(fileURLWithPath: directory.file("log")))
    }

    /// Every sd_notify message received so far, in order.
    var messages: [String] {
        received.withLock {
            $0 += notify.drain()
            return $0
        }
    }

    func waitForMessage(_ message: String) async -> Bool {
        await waitUntil { messages.contains(message) }
    }

    /// `--summary`'s JSON: the log's lines from a lone `{` to a lone `}`.
    var summary: RunSummary? {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false)
        guard let start = lines.firstIndex(of: "{"), let end = lines[start...].firstIndex(of: "}") else { return nil }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // docs/json.md: `trips_ended`
        return try? decoder.decode(RunSummary.self, from: Data(lines[start...end].joined(separator: "\n").utf8))
    }

    func cleanup() { directory.cleanup() }
}

/// The part of `run --summary` the tests read.
struct RunSummary: Decodable {
    var records: Int
    var outputs: Int
    var tripsEnded: Int
    var trackPoints: Int
}
