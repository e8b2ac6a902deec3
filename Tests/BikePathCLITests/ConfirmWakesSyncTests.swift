import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 38 item 2: a confirmation wakes sync. With `sync.interval_s` at 300 s, a ride confirmed
/// while the daemon runs used to wait out the interval; now `drafts confirm` asks the daemon through
/// its status socket and the confirmation reaches the hub within seconds. A real `bikepath-hub`, a
/// real `bikepathd run` (replaying the bundled ride at real time, so it keeps running) and the CLI.
@Suite(.ownThreads, .timeLimitOnceRunning(.minutes(3))) struct ConfirmWakesSyncTests {
    private let recording = packageRoot + "/Recordings/allthedocks-GX010056.bpr"

    private func confirmations(_ hub: HubProcess) -> Int {
        ((try? hub.records()) ?? []).filter { $0.kind == "confirmation" }.count
    }

    @Test("drafts confirm, with the daemon running, gets the ride to the hub within seconds")
    func confirmationLeavesAtOnce() async throws {
        let bin = try #require(bikepathdPath())
        let device = try Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let config = device.dir.file("c.toml")
        try """
        [store]
        path = "\(device.dbPath)"
        [sync]
        hub_url = "\(hub.url)"
        token_file = "\(device.tokenFile)"
        interval_s = 300
        [status]
        socket = "\(device.dir.file("st.sock"))"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let log = URL(fileURLWithPath: device.dir.file("run.log"))
        let daemon = try ChildProcess(
            bin, ["run", "--config", config, "--replay", recording, "--replay-speed", "1"], output: log, errorOutput: log)
        defer { daemon.stop(signal: SIGKILL) }
        // The daemon's first pass sends the pending drafts and trips; then it waits 300 s.
        let firstPass = await RealDaemons.wait(timeout: 60) { ((try? hub.records()) ?? []).contains { $0.kind == "trip" } }
        #expect(firstPass, "the first pass did not reach the hub: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        #expect(confirmations(hub) == 0)

        let started = Date()
        let confirm = try await runProcess(bin, ["drafts", "confirm", "1", "--config", config])
        #expect(confirm.status == 0, "\(confirm.err)")
        #expect(confirm.out.contains("the daemon is sending it to the hub now"), "\(confirm.out)")
        let arrived = await RealDaemons.wait(timeout: 20) { confirmations(hub) == 1 }
        let seconds = Date().timeIntervalSince(started)
        #expect(arrived && seconds < 20, "the confirmation took \(seconds) s (sync.interval_s is 300)")

        // `diagnose`'s outbox line and `sync status` count by the one rule.
        let status = try await runProcess(bin, ["sync", "status", "--config", config])
        #expect(status.out.contains("outbox: 0 waiting to send"), "\(status.out)")

        // With the daemon gone, the rider is told why the next one waits and what sends it.
        kill(daemon.pid, SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) != nil)
        let later = try await runProcess(bin, ["drafts", "confirm", "2", "--config", config])
        #expect(later.out.contains("no daemon answers on \(device.dir.file("st.sock"))"), "\(later.out)")
        #expect(later.out.contains("`bikepathd sync run --once`"), "\(later.out)")
    }
}
