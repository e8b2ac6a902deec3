import Dispatch
import Foundation
import Synchronization

/// At most `running` route searches at once, at most `waiting` more queued in arrival order,
/// and none beyond: `enter` answers false at once, and the request is refused 503 `busy`
/// (`capacity`, listed with the hub's other bounds in `HubLimits`). A search holds its box's
/// graph and a core; unbounded, 50 at once took 54 s each and held `/v1/health` for 5.8 s.
final class SearchGate: Sendable {
    /// Route searches at once (each holds a box's graph and a thread of `SearchThreads`), and
    /// more waiting for one; beyond, 503 `busy` with `Retry-After`, so that uploads and
    /// `/v1/health` keep their share of the 2 cores (50 long searches at once took 54 s each
    /// and held health for 5.8 s). A waiting search waits at most two searches' time.
    static let capacity = (running: 1, waiting: 4)

    private struct State {
        var running = 0
        /// Admitted to wait: those in `waiting` and those about to join it.
        var queued = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())
    let running: Int, waiting: Int
    private enum Admission { case now, queued, busy }

    init(running: Int, waiting: Int) { (self.running, self.waiting) = (running, waiting) }

    /// Runs `search` when a place is free; nil, at once, when every place and every queue
    /// slot is taken.
    func enter<T: Sendable>(_ search: () async throws -> T) async throws -> T? {
        let admitted: Admission = state.withLock { s in
            if s.running < running {
                s.running += 1
                return .now
            }
            guard s.queued < waiting else { return .busy }
            s.queued += 1
            return .queued
        }
        switch admitted {
        case .busy: return nil
        case .now: break
        case .queued:
            // Queued under the lock it was admitted by: a place freed meanwhile hands over
            // to it, or the place is taken here.
            await withCheckedContinuation { c in
                let resumeNow = state.withLock { s -> Bool in
                    if s.running < running {
                        s.running += 1
                        s.queued -= 1
                        return true
                    }
                    s.waiting.append(c)
                    return false
                }
                if resumeNow { c.resume() }
            }
        }
        defer { leave() }
        try Task.checkCancellation()
        return try await search()
    }

    /// Searches admitted to wait for a place.
    var queued: Int { state.withLock { $0.queued } }

    /// Hands the place to the first waiting search, or frees it.
    private func leave() {
        let next = state.withLock { s -> CheckedContinuation<Void, Never>? in
            if s.waiting.isEmpty {
                s.running -= 1
                return nil
            }
            s.queued -= 1
            return s.waiting.removeFirst()
        }
        next?.resume()
    }
}

/// Threads of their own for route searches (a search's Dijkstra and contraction are CPU
/// for seconds on a big city): run on Swift's cooperative pool, whose width is the cores,
/// two searches held both of this machine's and `/v1/health` and uploads waited behind them.
/// Here they take CPU as the kernel shares it, at nice +10, as `DecodeWorkers` do. One set
/// for the process (in-process tests build many hubs).
final class SearchThreads: TaskExecutor, @unchecked Sendable {
    static let shared = SearchThreads(threads: SearchGate.capacity.running)

    private let jobs = Mutex<[UnownedJob]>([])
    private let ready = DispatchSemaphore(value: 0)

    private init(threads: Int) {
        for n in 0..<threads {
            let thread = Thread { [unowned self] in
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                while true {
                    ready.wait()
                    guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                    job.runSynchronously(on: asUnownedTaskExecutor())
                }
            }
            thread.name = "route-search-\(n)"
            thread.start()
        }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        jobs.withLock { $0.append(job) }
        ready.signal()
    }
}
