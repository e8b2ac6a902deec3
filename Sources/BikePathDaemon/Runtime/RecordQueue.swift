import BikePathCore
import Foundation

/// Where the source threads hand their records to the pipeline thread. Records
/// wait in a `ReceiveOrderMerger` and come out in time order; `next` blocks at
/// most its timeout, so the pipeline loop still passes (and beats the watchdog)
/// when no sensor sends anything.
///
/// Unchecked Sendable: every field is guarded by `condition`, a condition variable because
/// the pipeline thread blocks in `next` (Synchronization's Mutex cannot wait).
public final class RecordQueue: @unchecked Sendable {
    private let condition = NSCondition()
    private var merger: ReceiveOrderMerger
    private var closed = false
    private let clock: @Sendable () -> SampleTime

    /// Creates a queue; `clock` gives the monotonic time that decides when held records are due.
    public init(holdbackSeconds: Double, clock: @escaping @Sendable () -> SampleTime) {
        merger = ReceiveOrderMerger(holdbackSeconds: holdbackSeconds)
        self.clock = clock
    }

    /// Hands records from a source thread to the queue and wakes the reader.
    public func push(_ records: [SensorRecord]) {
        guard !records.isEmpty else { return }
        condition.lock()
        merger.add(records)
        condition.unlock()
        condition.signal()
    }

    /// Records due by now; waits up to `timeoutSeconds` for some (in steps, as
    /// held records become due without a new push). After `close`, everything held.
    public func next(timeoutSeconds: Double) -> [SensorRecord] {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if closed { return merger.releaseAll() }
            let due = merger.release(now: clock())
            if !due.isEmpty { return due }
            let step = Date().addingTimeInterval(merger.heldCount > 0 ? 0.05 : timeoutSeconds)
            if !condition.wait(until: min(step, deadline)), Date() >= deadline { return [] }
        }
    }

    /// Ends the input: `next` returns what is held, then empty batches.
    public func close() {
        condition.lock()
        closed = true
        condition.unlock()
        condition.broadcast()
    }
}
