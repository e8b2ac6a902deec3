import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathDaemon
import Synchronization

@Suite("systemd notify and watchdog", .ownThreads)
struct SystemdNotifyTests {
    @Test("READY, STATUS, WATCHDOG, STOPPING, RELOADING arrive as datagrams", arguments: [false, true])
    func messages(abstract: Bool) throws {
        let socket = try NotifySocket(abstract: abstract)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        #expect(notifier.isEnabled)
        try notifier.ready(status: "riding: no")
        try notifier.status("gpsd missing; degraded")
        try notifier.watchdogPing()
        try notifier.reloading()
        try notifier.stopping()
        #expect(
            socket.drain() == ["READY=1\nSTATUS=riding: no", "STATUS=gpsd missing; degraded", "WATCHDOG=1", "RELOADING=1", "STOPPING=1"])
    }

    @Test("Without NOTIFY_SOCKET nothing is sent and nothing fails")
    func disabled() throws {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        try notifier.ready()
        #expect(notifier.watchdogInterval == nil)
    }

    @Test("A socket that is not there is reported, not ignored")
    func missingSocket() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/nonexistent/bikepath/notify"])
        #expect(throws: NotifyError.self) { try notifier.ready() }
    }

    @Test("WATCHDOG_USEC gives half as the ping interval; WATCHDOG_PID of another process disables it")
    func watchdogInterval() {
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"], pid: 7) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "7"], pid: 7) == .seconds(15))
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "8"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "0"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "x"], pid: 7) == nil)
        #expect(SystemdNotifier.watchdogInterval(environment: [:], pid: 7) == nil)
    }

    @Test("The watchdog pings only when the heartbeat has advanced")
    func pingsOnProgress() throws {
        let socket = try NotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name, "WATCHDOG_USEC": "2000000"])
        let heartbeat = Heartbeat()
        let stalls = Counter()
        let watchdog = try #require(Watchdog(notifier: notifier, heartbeat: heartbeat) { stalls.set($0) })
        #expect(watchdog.interval == .seconds(1))
        #expect(watchdog.check())  // start counts as progress
        #expect(!watchdog.check())  // nothing happened since
        #expect(!watchdog.check())
        #expect(stalls.value == 2)
        heartbeat.beat()
        #expect(watchdog.check())
        #expect(stalls.value == 2)
        #expect(socket.drain() == ["WATCHDOG=1", "WATCHDOG=1"])
    }

    @Test("Running: pings while the pipeline beats, none once it stalls")
    func stalledPipelineStopsPings() async throws {
        let socket = try NotifySocket()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])
        let heartbeat = Heartbeat()
        // Counts the checks that saw no progress after the last beat (a loaded
        // machine may also stall the checks in between beats; those don't count).
        let lastBeat = Counter()  // the heartbeat's count once the pipeline stalls; 0 while it beats
        let stallsAfterEnd = Counter()
        let watchdog = try #require(
            Watchdog(notifier: notifier, heartbeat: heartbeat, interval: .milliseconds(20)) { _ in
                if lastBeat.value > 0, heartbeat.count == lastBeat.value { stallsAfterEnd.increment() }
            })
        let running = Task { await watchdog.run() }
        // Beats every 5 ms until the watchdog has pinged twice: on a loaded machine its task
        // may not run for a while (15 beats over 75 ms once saw a single ping, full suite on 2 cores).
        var whileBeating: [String] = []
        let beatUntil = Date().addingTimeInterval(20)
        while whileBeating.count < 2, Date() < beatUntil {
            heartbeat.beat()
            usleep(5_000)
            whileBeating += socket.drain()
        }
        lastBeat.set(heartbeat.count)
        // The pipeline stalls. Wait (by the watchdog's own account, not a guessed
        // delay) for the first check that saw no progress: every ping before it is legitimate.
        #expect(pollUntil(everyMicroseconds: 5_000) { stallsAfterEnd.value >= 1 }, "the watchdog saw the stall")
        whileBeating += socket.drain()
        #expect(pollUntil(everyMicroseconds: 5_000) { stallsAfterEnd.value >= 6 }, "the watchdog checked 6 times")
        let whileStalled = socket.drain()
        running.cancel()
        await running.value
        #expect(whileBeating.count >= 2)
        #expect(Set(whileBeating) == ["WATCHDOG=1"])
        #expect(whileStalled.isEmpty)
        // The pipeline recovers: pings resume.
        heartbeat.beat()
        #expect(watchdog.check())
        #expect(socket.drain() == ["WATCHDOG=1"])
    }

    @Test("No watchdog when systemd asked for none")
    func noWatchdog() {
        #expect(Watchdog(notifier: SystemdNotifier(environment: [:]), heartbeat: Heartbeat()) == nil)
    }
}

final class Counter: Sendable {
    private let stored = Mutex<UInt64>(0)
    func set(_ v: UInt64) { stored.withLock { $0 = v } }
    func increment() { stored.withLock { $0 += 1 } }
    var value: UInt64 { stored.withLock { $0 } }
}
