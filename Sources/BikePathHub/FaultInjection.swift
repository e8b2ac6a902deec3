import BikePathCore
import Synchronization

/// The fault hook: injected failures for the sync client's tests. Nothing in the shipped
/// `bikepath-hub` sets it; tests pass it to `Hub.buildApplication` (in process) or run the
/// test-only `bikepath-hub-faults` executable. The hub logs a warning when any is on.
public struct HubFaults: Sendable, CustomStringConvertible {
    /// Share of requests answered 500 before anything is read or stored.
    public var failRatio = 0.0
    /// Share of requests answered 503 with `Retry-After: 1`.
    public var busyRatio = 0.0
    /// Share of requests delayed by `delayMilliseconds` before they are processed
    /// (the record is still stored after the delay, even if the client gave up).
    public var delayRatio = 0.0
    public var delayMilliseconds = 0
    /// Share of record requests that are committed and then have their connection
    /// closed without an answer.
    public var dropAfterCommitRatio = 0.0
    public var seed: UInt64 = 1

    public init(failRatio: Double = 0, busyRatio: Double = 0, delayRatio: Double = 0, delayMilliseconds: Int = 0,
                dropAfterCommitRatio: Double = 0, seed: UInt64 = 1) {
        self.failRatio = failRatio
        self.busyRatio = busyRatio
        self.delayRatio = delayRatio
        self.delayMilliseconds = delayMilliseconds
        self.dropAfterCommitRatio = dropAfterCommitRatio
        self.seed = seed
    }

    public var description: String {
        "fail \(failRatio), busy \(busyRatio), delay \(delayRatio) × \(delayMilliseconds) ms, drop after commit \(dropAfterCommitRatio), seed \(seed)"
    }

    public var isActive: Bool { failRatio > 0 || busyRatio > 0 || (delayRatio > 0 && delayMilliseconds > 0) || dropAfterCommitRatio > 0 }
}

/// Seeded dice for the fault switches, shared by all request handlers.
final class FaultDice: Sendable {
    private let dice: Mutex<SplitMix64>
    let faults: HubFaults

    init(_ faults: HubFaults) {
        self.faults = faults
        dice = Mutex(SplitMix64(state: faults.seed))
    }

    /// True with probability `p`.
    func roll(_ p: Double) -> Bool {
        guard p > 0 else { return false }
        let x = dice.withLock { $0.next() }
        return Double(x >> 11) / Double(1 << 53) < p
    }
}
