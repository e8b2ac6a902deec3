import BikePathTestSupport
import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// `bikepathd run` without its sensors (no root needed): it refuses a bad
/// configuration, runs degraded and says so, reloads on SIGHUP (refusing a bad
/// file), and stops on SIGTERM within 2 s.
@Suite("bikepathd run: configuration, degraded mode, SIGHUP, SIGTERM", .serialized, .ownThreads)
struct DaemonRunTests {
    @Test("bad configuration: refuses to start with FILE:LINE: KEY: REASON, exit 78")
    func refusesBadConfiguration() throws {
        let bikepathd = try #require(RealDaemons.bikepathd, "bikepathd is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let file = dir.url.appendingPathComponent("bikepathd.toml").path
        try "[gnss]\nport = 70000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(
            bikepathd, ["run", "--config", file, "--db", dir.url.appendingPathComponent("s.sqlite").path],
            output: dir.url.appendingPathComponent("log"))
        #expect(daemon.waitForExit() == 78)
        let log = try String(contentsOf: dir.url.appendingPathComponent("log"), encoding: .utf8)
        #expect(log.contains("bikepathd.toml:2: gnss.port: 70000 is out of range 1...65535"), "\(log)")
        #expect(!FileManager.default.fileExists(atPath: dir.url.appendingPathComponent("s.sqlite").path), "nothing was started")
    }

    @Test(
        "no gpsd, no IMU: keeps running degraded and says so; SIGHUP reloads or refuses; SIGTERM stops within 2 s",
        .timeLimitOnceRunning(.minutes(1)))
    func degradedReloadStop() async throws {
        let bikepathd = try #require(RealDaemons.bikepathd, "bikepathd is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        func path(_ name: String) -> String { dir.url.appendingPathComponent(name).path }
        let config = { (extra: String) in
            """
            [gnss]
            host = "127.0.0.1"
            port = \(RealDaemons.freePort())
            [imu]
            uri = "ip:127.0.0.1:\(RealDaemons.freePort())"
            [store]
            path = "\(path("store.sqlite"))"
            [status]
            socket = "\(path("status.sock"))"
            \(extra)
            """
        }
        try config("").write(toFile: path("bikepathd.toml"), atomically: true, encoding: .utf8)
        let daemon = try ChildProcess(
            bikepathd, ["run", "--config", path("bikepathd.toml")], output: dir.url.appendingPathComponent("log"))
        defer { daemon.stop(signal: SIGKILL) }
        let log = { (try? String(contentsOfFile: path("log"), encoding: .utf8)) ?? "" }
        let cli = CLI(binary: bikepathd, store: path("store.sqlite"), socket: path("status.sock"))

        #expect(
            await RealDaemons.wait(timeout: 15) {
                let d = cli.status()?.degraded ?? []
                return d.contains { $0.hasPrefix("gpsd unreachable") } && d.contains { $0.hasPrefix("IMU missing") }
            }, "status names both missing sensors: \(cli.status().debugDescription)")
        // The degraded-mode watcher looks once a second: its log lines may trail the status.
        #expect(
            await RealDaemons.wait(timeout: 5) {
                log().contains("running degraded: gpsd unreachable") && log().contains("running degraded: IMU missing")
            }, "each missing sensor is logged: \(log())")
        #expect(daemon.waitForExit(timeout: 0) == nil, "still running")

        // A bad file on SIGHUP: refused with the line, the running configuration stays.
        try "\(config(""))\n[trip]\nend_after_s = 1\n".write(toFile: path("bikepathd.toml"), atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        #expect(await RealDaemons.wait(timeout: 5) { log().contains("reload refused") && log().contains("trip.end_after_s") }, "\(log())")
        #expect(daemon.waitForExit(timeout: 0) == nil)
        // A good one: reloaded.
        try config("[trip]\nend_after_s = 60\n").write(toFile: path("bikepathd.toml"), atomically: true, encoding: .utf8)
        kill(daemon.pid, SIGHUP)
        #expect(await RealDaemons.wait(timeout: 5) { log().contains("configuration reloaded: chain settings") }, "\(log())")
        #expect(cli.status() != nil, "still answering after the reloads")

        let stopAt = Date()
        kill(daemon.pid, SIGTERM)
        #expect(daemon.waitForExit(timeout: 2) == 0, "SIGTERM: exit 0 within 2 s")
        #expect(Date().timeIntervalSince(stopAt) < 2)
        #expect(log().contains("stopped; everything committed"))
    }
}
