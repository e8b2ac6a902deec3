import BikePathCore
import Foundation
import Logging
import Synchronization

/// The thread plumbing both live sources share: one reader thread, started at most once,
/// stopped through its `StopFlag`, and an `AsyncStream` view of what the thread delivers.
/// The sources keep only what is theirs: how to connect, read and recover.
final class ReaderThread: Sendable {
    let flag = StopFlag()
    private let name: String
    private let started = Atomic<Bool>(false)

    init(name: String) { self.name = name }

    /// Runs `body` on a new thread; `onExit` runs on it once `body` returns. Later calls do
    /// nothing: a source has one reader.
    func start(_ body: @escaping @Sendable () -> Void, onExit: @escaping @Sendable () -> Void = {}) {
        guard !started.exchange(true, ordering: .acquiringAndReleasing) else { return }
        SignalSetup.ignoreSIGPIPE()
        let thread = Thread { [flag] in
            body()
            flag.markExited()
            onExit()
        }
        thread.name = name
        thread.start()
    }

    /// Starts the reader with a `deliver` that feeds the returned stream. At most
    /// `bufferSize` elements wait for the consumer; `deliver` returns false for the ones
    /// that did not fit (the oldest are kept), so the source can count them. The stream
    /// finishes when the reader exits; dropping the stream stops the reader.
    func stream<Element: Sendable>(
        bufferSize: Int,
        reading body: @escaping @Sendable (_ deliver: @escaping @Sendable (Element) -> Bool) -> Void
    )
        -> AsyncStream<Element>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingOldest(bufferSize))
        start(
            {
                body { element in
                    if case .enqueued = continuation.yield(element) { return true }
                    return false
                }
            }, onExit: { continuation.finish() })
        continuation.onTermination = { [flag] _ in flag.stop() }
        return stream
    }

    /// Stops the reader and waits up to `timeout` seconds for its thread to end.
    func stop(waitingUpTo timeout: Double) {
        flag.stop()
        _ = waitForExit(timeout: timeout)
    }

    /// Waits up to `timeout` seconds for a stopped reader's thread to end; true once it has
    /// (or never started).
    func waitForExit(timeout: Double) -> Bool {
        !started.load(ordering: .acquiring) || flag.waitForExit(timeout: timeout)
    }
}

/// The connection counters both sources keep in their status.
protocol ConnectionCounters {
    var connectFailures: Int { get set }
    var lastError: String? { get set }
}

extension ReaderThread {
    /// After a failed attempt to reach the sensor: counts it and keeps `error` in the
    /// status, logs `warning` with the coming delay and the failure count (throttled, so
    /// a sensor that stays away does not flood the log), then waits out the backoff;
    /// `stop()` cuts the wait short.
    func retryAfterFailedConnect<Status: ConnectionCounters>(
        _ state: borrowing Mutex<Status>, error: String, warning: String,
        backoff: inout Backoff, throttle: LogThrottle, logger: Logger
    ) {
        let failures = state.withLock { s in
            s.connectFailures += 1
            s.lastError = error
            return s.connectFailures
        }
        let delay = backoff.next()
        if throttle.shouldLog(count: failures) {
            logger.warning("\(warning); retrying in \(delay) s (failure \(failures))")
        }
        flag.sleep(delay)
    }
}
