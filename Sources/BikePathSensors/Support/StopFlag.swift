import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A run flag shared between a source's owner and its reader thread, plus a sleep that
/// wakes early when the flag drops (so `stop()` never waits out a long backoff).
final class StopFlag: Sendable {
    private let running = Atomic<Bool>(true)
    private let exited = Atomic<Bool>(false)

    var isRunning: Bool { running.load(ordering: .acquiring) }
    func stop() { running.store(false, ordering: .releasing) }

    func markExited() { exited.store(true, ordering: .releasing) }
    var hasExited: Bool { exited.load(ordering: .acquiring) }

    /// Sleeps up to `seconds`; returns false if stopped meanwhile.
    @discardableResult
    func sleep(_ seconds: Double) -> Bool {
        var left = seconds
        while left > 0, isRunning {
            let slice = min(left, 0.05)
            usleep(UInt32(slice * 1_000_000))
            left -= slice
        }
        return isRunning
    }

    /// Waits (polling) until the reader thread has exited, at most `timeout` seconds.
    func waitForExit(timeout: Double) -> Bool {
        var left = timeout
        while !hasExited, left > 0 {
            usleep(10_000)
            left -= 0.01
        }
        return hasExited
    }
}
