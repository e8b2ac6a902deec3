import BikePathTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing
@testable import BikePathDaemon

/// The services of `bikepathd run` in a real ServiceGroup, with fakes at the
/// edges: what each does on start, on graceful shutdown, and when it ends.
@Suite("run's services under swift-service-lifecycle", .timeLimitOnceRunning(.minutes(5)), .ownThreads)
struct LifecycleServiceTests {
    @Test("graceful shutdown stops the pipeline, and services shut down after it see everything committed")
    func pipelineCommitsBeforeLaterServicesStop() async throws {
        let loop = FakeLoop(ending: .whenStopped)
        let probe = ShutdownProbe(loop: loop)
        let group = Self.group([probe.configured, Self.pipeline(loop)])
        let running = Task { try await group.run() }
        #expect(await waitUntil { loop.started })
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(loop.stopRequested && loop.committed)
        #expect(probe.sawCommitted == true, "the earlier service was told to stop only after the commit")
        #expect(probe.wasCancelled == false, "shut down gracefully, not cancelled")
    }

    @Test("the pipeline ending by itself (end of a recording) shuts the whole group down gracefully")
    func pipelineEndingEndsTheGroup() async throws {
        let loop = FakeLoop(ending: .byItself)
        let probe = ShutdownProbe(loop: loop)
        try await Self.group([probe.configured, Self.pipeline(loop)]).run()
        #expect(!loop.stopRequested && loop.committed)
        #expect(probe.sawCommitted == true)
        #expect(probe.wasCancelled == false)
    }

    @Test("a failing pipeline makes the group throw PipelineFailure after shutting the rest down")
    func pipelineFailureEndsTheGroupWithTheError() async throws {
        let loop = FakeLoop(ending: .failing)
        let probe = ShutdownProbe(loop: loop)
        await #expect(throws: PipelineFailure.self) {
            try await Self.group([probe.configured, Self.pipeline(loop)]).run()
        }
        #expect(probe.sawCommitted == false, "told to stop although nothing could be committed")
        #expect(probe.wasCancelled == false)
    }

    @Test("READY=1 only once the pipeline has made a pass; STOPPING=1 at graceful shutdown")
    func readiness() async throws {
        let socket = try NotifySocket()
        let heartbeat = Heartbeat()
        let service = SystemdReadinessService(
            notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name]),
            heartbeat: heartbeat, logger: Self.quiet, runningMessage: "running")
        let group = Self.group([Self.helper(service)])
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(socket.drain().isEmpty, "no READY=1 before the pipeline's first pass")
        heartbeat.beat()
        var received: [String] = []
        #expect(
            await waitUntil {
                received += socket.drain(); return !received.isEmpty
            })
        #expect(received == ["READY=1\nSTATUS=running"])
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(socket.drain() == ["STOPPING=1"])
    }

    @Test("degraded reasons: said once when they appear and once when they clear, to the log, tail and systemd")
    func degradedMode() async throws {
        let socket = try NotifySocket()
        let reasons = Mutex<[String]>([])
        let events = Mutex<[String]>([])
        let service = DegradedModeService(
            reasons: { reasons.withLock { $0 } },
            notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name]),
            logger: Self.quiet, interval: .milliseconds(10)
        ) { event in
            events.withLock { $0.append("\(event.kind): \(event.message)") }
        }
        let group = Self.group([Self.helper(service)])
        let running = Task { try await group.run() }
        reasons.withLock { $0 = ["gpsd unreachable"] }
        #expect(await waitUntil { events.withLock { $0.count } == 1 })
        try await Task.sleep(for: .milliseconds(100))  // many checks with the same reason
        reasons.withLock { $0 = [] }
        #expect(await waitUntil { events.withLock { $0.count } == 2 })
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(events.withLock { $0 } == ["degraded: gpsd unreachable", "recovered: gpsd unreachable"])
        #expect(socket.drain() == ["STATUS=degraded: gpsd unreachable", "STATUS=running"])
    }

    /// The signal's action when it runs a handler (neither SIG_DFL nor SIG_IGN), else nil.
    static func catchingHandler(_ signo: Int32) -> sigaction? {
        var action = sigaction()
        sigaction(signo, nil, &action)
        let handler = unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
        return handler == unsafeBitCast(SIG_IGN, to: Int.self) || handler == unsafeBitCast(SIG_DFL, to: Int.self) ? nil : action
    }

    @Test("SIGHUP reloads (RELOADING=1, then READY=1) and does not stop anything")
    func sighupReloads() async throws {
        // Should the service not be listening yet, the signal must not end the test run.
        let dispatchHandler = Self.catchingHandler(SIGHUP)
        if dispatchHandler == nil { signal(SIGHUP, SIG_IGN) }
        let socket = try NotifySocket()
        let reloads = Counter()
        let service = ConfigurationReloadService(notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name])) {
            reloads.increment()
        }
        let group = Self.group([Self.helper(service)])
        let finished = Counter()
        let running = Task {
            try await group.run()
            finished.increment()
        }
        // Until the service has trapped SIGHUP a signal is lost: send until one arrives.
        #expect(
            await waitUntil {
                // libdispatch installs its SIGHUP handler once a process, for its first SIGHUP
                // source; service-lifecycle sets SIG_IGN for each new one. After an earlier
                // suite's reload service that SIG_IGN stays, and the main thread (parked in
                // sigsuspend, every signal open) takes each SIGHUP and drops it.
                if var handler = dispatchHandler, Self.catchingHandler(SIGHUP) == nil { sigaction(SIGHUP, &handler, nil) }
                kill(getpid(), SIGHUP)
                return reloads.value > 0
            })
        try await Task.sleep(for: .milliseconds(100))
        let messages = socket.drain()
        #expect(messages.count == 2 * Int(reloads.value))
        #expect(Array(messages.prefix(2)) == ["RELOADING=1", "READY=1\nSTATUS=running"])
        #expect(finished.value == 0, "still running after the reload")
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(finished.value == 1)
    }

    @Test("the watchdog pings while the service runs and never after its shutdown")
    func watchdog() async throws {
        let socket = try NotifySocket()
        let heartbeat = Heartbeat()
        let watchdog = try #require(
            Watchdog(
                notifier: SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.name]),
                heartbeat: heartbeat, interval: .milliseconds(10)))
        let group = Self.group([Self.helper(WatchdogService(watchdog: watchdog))])
        let running = Task { try await group.run() }
        var received: [String] = []
        #expect(
            await waitUntil {
                received += socket.drain(); return !received.isEmpty
            })
        #expect(Set(received) == ["WATCHDOG=1"])
        await group.triggerGracefulShutdown()
        try await running.value
        _ = socket.drain()
        heartbeat.beat()
        try await Task.sleep(for: .milliseconds(100))
        #expect(socket.drain().isEmpty, "no ping after the service stopped")
    }

    // MARK: - helpers

    static let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    static func group(_ services: [ServiceGroupConfiguration.ServiceConfiguration]) -> ServiceGroup {
        ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: quiet))
    }

    static func pipeline(_ loop: FakeLoop) -> ServiceGroupConfiguration.ServiceConfiguration {
        .init(
            service: PipelineService(loop: loop), successTerminationBehavior: .gracefullyShutdownGroup,
            failureTerminationBehavior: .gracefullyShutdownGroup)
    }

    static func helper(_ service: any Service) -> ServiceGroupConfiguration.ServiceConfiguration {
        .init(service: service, successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore)
    }
}

/// A pipeline loop that commits (slowly, 50 ms) when asked to stop, at the end
/// of its input, or fails.
final class FakeLoop: PipelineLoop, @unchecked Sendable {
    enum Ending { case whenStopped, byItself, failing }
    struct Failed: Error {}
    let ending: Ending
    private let condition = NSCondition()
    private var stop = false
    private var isStarted = false
    private var isCommitted = false

    init(ending: Ending) { self.ending = ending }

    func run() throws {
        condition.withLock { isStarted = true }
        switch ending {
        case .whenStopped: condition.withLock { while !stop { condition.wait() } }
        case .byItself: usleep(20_000)
        case .failing: throw Failed()
        }
        usleep(50_000)
        condition.withLock { isCommitted = true }
    }

    func requestStop() {
        condition.withLock {
            stop = true; condition.broadcast()
        }
    }

    var started: Bool { condition.withLock { isStarted } }
    var stopRequested: Bool { condition.withLock { stop } }
    var committed: Bool { condition.withLock { isCommitted } }
}

/// A service placed before the pipeline (like sync or the status socket): it
/// notes whether the pipeline had committed when it was told to shut down.
final class ShutdownProbe: Service, @unchecked Sendable {
    let loop: FakeLoop
    private let seen = Mutex<(committed: Bool?, cancelled: Bool?)>((nil, nil))

    init(loop: FakeLoop) { self.loop = loop }

    var configured: ServiceGroupConfiguration.ServiceConfiguration { LifecycleServiceTests.helper(self) }

    func run() async {
        try? await gracefulShutdown()
        let cancelledNow = Task.isCancelled
        let committedNow = loop.committed
        seen.withLock { $0 = (committedNow, cancelledNow) }
    }

    var sawCommitted: Bool? { seen.withLock { $0.committed } }
    var wasCancelled: Bool? { seen.withLock { $0.cancelled } }
}
