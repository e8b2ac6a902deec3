import Synchronization

/// Wakes the sync loop early: at most one waiter; a signal with no waiter is kept for the
/// next wait. `signal` is synchronous and never blocks, so the pipeline's thread and a
/// signal handler's loop call it directly (no task spawned per signal).
final class Wakeup: Sendable {
    enum Reason: Equatable { case timeout, signal, resetBackoff }

    private struct State {
        var pending: Reason?
        var waiter: CheckedContinuation<Reason, Never>?
    }
    private let state = Mutex(State())

    /// Wakes the waiter (or the next one); `resetBackoff`: the network changed, forget past failures.
    func signal(resetBackoff: Bool = false) {
        let reason: Reason = resetBackoff ? .resetBackoff : .signal
        let waiter = state.withLock { s -> CheckedContinuation<Reason, Never>? in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            // A reset is not lost behind a plain signal.
            if s.pending != .resetBackoff { s.pending = reason }
            return nil
        }
        waiter?.resume(returning: reason)
    }

    /// Returns after `seconds`, at a `signal`, or when the waiting task is cancelled
    /// (graceful shutdown must not wait out a 60 s idle poll). The timer and the wait are
    /// child tasks of this call: whichever ends first cancels the other.
    func wait(seconds: Double) async -> Reason {
        await withTaskGroup(of: Reason.self) { group in
            group.addTask {
                try? await Task.sleep(for: .milliseconds(Int64(max(0, seconds) * 1000)))
                return .timeout
            }
            group.addTask { await self.nextSignal() }
            let first = await group.next() ?? .timeout
            group.cancelAll()
            return first
        }
    }

    private func nextSignal() async -> Reason {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Reason, Never>) in
                let ready = state.withLock { s -> Reason? in
                    if let pending = s.pending {
                        s.pending = nil
                        return pending
                    }
                    if Task.isCancelled { return .timeout }
                    s.waiter = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { s in
                defer { s.waiter = nil }; return s.waiter
            }?.resume(returning: .timeout)
        }
    }
}
