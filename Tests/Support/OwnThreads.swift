import Foundation
import Testing

/// An executor that never makes a job wait behind a blocked thread: a job finds an
/// idle thread or starts a new one; a thread idle for 10 s ends.
///
/// Why: Swift's global pool has one thread per core (two here) for the whole test
/// process. Tests that run a child process, read a socket or poll a file block the
/// thread they run on; two of them at once and the in-process servers of other
/// suites (the hub, the review page), which answer on that pool, stop answering.
/// CI saw requests time out after 20 and 30 s that way. Test bodies run here instead
/// (`.ownThreads`), so the global pool stays free for the servers.
public final class OwnThreadsExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = OwnThreadsExecutor()

    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var idle = 0

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        let start = idle == 0
        if !start { condition.signal() }
        condition.unlock()
        if start { Thread { self.work() }.start() }
    }

    private func work() {
        Self.blockAsynchronousSignals()
        let executor = asUnownedTaskExecutor()
        condition.lock()
        while true {
            while jobs.isEmpty {
                idle += 1
                let woken = condition.wait(until: Date() + 10)
                idle -= 1
                if !woken && jobs.isEmpty {
                    condition.unlock()
                    return
                }
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: executor)
            condition.lock()
        }
    }

    /// As libdispatch's own workers do. A process-directed signal goes to any thread that
    /// does not block it; with SIGHUP ignored (service-lifecycle's signal sources read
    /// them through signalfd) one landing here would be discarded, and the reload test
    /// waited 10 s for a SIGHUP that never came.
    private static func blockAsynchronousSignals() {
        var set = sigset_t()
        sigfillset(&set)
        for synchronous in [SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT] { sigdelset(&set, synchronous) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}

/// Lets at most `width` tests run at once; the others wait without holding a thread.
///
/// The global pool's two threads used to bound how many blocking tests ran together;
/// on threads of their own all ~60 suites with daemons would start at once (gpsd,
/// iiod, PostgreSQL, chromium) and miss their own deadlines on two cores.
actor TestAdmission {
    static let shared = TestAdmission(width: Int(ProcessInfo.processInfo.environment["BIKEPATH_TEST_WIDTH"] ?? "") ?? 4)

    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) { self.width = max(1, width) }

    func enter() async {
        if running < width {
            running += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func leave() {
        if waiting.isEmpty { running -= 1 } else { waiting.removeFirst().resume() }
    }
}

/// Runs each test of a suite on `OwnThreadsExecutor` (see there why), at most
/// `BIKEPATH_TEST_WIDTH` (4) at once. Every suite outside the pure core carries it;
/// `TestHygieneTests` checks that none is missed.
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite itself has no body to run; its tests get a scope each.
        guard testCase != nil else { return try await function() }
        await TestAdmission.shared.enter()
        defer { Task { await TestAdmission.shared.leave() } }
        let limit = test.traits.compactMap { ($0 as? TimeLimitOnceRunning)?.limit }.min()
        try await withTaskExecutorPreference(OwnThreadsExecutor.shared) {
            guard let limit else { return try await function() }
            try await TimeLimitOnceRunning.run(function, within: limit)
        }
    }
}

/// A test's time limit counted from its admission, not from its start.
///
/// Why not `.timeLimit`: swift-testing starts that clock before the scoping traits run,
/// so it counted the wait for one of the `BIKEPATH_TEST_WIDTH` slots. On CI's two cores
/// most tests were admitted after ~130 s of waiting behind the PostgreSQL, browser
/// and daemon suites, and fifteen tests that run for seconds "exceeded" 60 or 120 s.
/// `OwnThreads` applies this limit once the test holds its slot; alone it does nothing,
/// which `TestHygieneTests` rules out by requiring `.ownThreads` on every such suite.
public struct TimeLimitOnceRunning: TestTrait, SuiteTrait {
    public var isRecursive: Bool { true }
    let limit: Duration

    /// Runs `body`; once `limit` has passed, records an issue and cancels it (a body
    /// blocked in a system call still has to return, as with swift-testing's limit).
    public static func run(_ body: @Sendable () async throws -> Void, within limit: Duration) async throws {
        try await withoutActuallyEscaping(body) { body in
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await body(); return true
                }
                group.addTask {
                    try await Task.sleep(for: limit); return false
                }
                let finished = try await group.next() ?? true
                group.cancelAll()
                if finished { return }
                Issue.record("Time limit was exceeded once admitted: \(limit)")
                while (try? await group.next()) != nil {}
            }
        }
    }
}

extension Trait where Self == TimeLimitOnceRunning {
    /// A time limit that starts when the test is admitted (see `TimeLimitOnceRunning`).
    public static func timeLimitOnceRunning(_ limit: TimeLimitTrait.Duration) -> Self {
        TimeLimitOnceRunning(limit: TimeLimitTrait.timeLimit(limit).timeLimit)
    }
}

extension Trait where Self == OwnThreads {
    /// Runs the tests on threads that may block (see `OwnThreadsExecutor`).
    public static var ownThreads: Self { OwnThreads() }
}
