import Foundation
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Threads of their own for the CPU-bound part of a request (inflate, shape check,
/// JSON decoding, validation, canonical encoding), so that a costly body never
/// holds up the request handlers on Swift's shared cooperative pool:
/// `GET /v1/health` answers while the workers are busy.
final class DecodeWorkers: Service {
    private let pool: NIOThreadPool
    private let inFlight = Atomic<Int>(0)
    private let maxInFlight: Int

    init(threads: Int = HubLimits.decodeThreads, maxInFlight: Int = HubLimits.maxDecoding) {
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
        self.maxInFlight = maxInFlight
    }

    /// `work`'s result, or nil at once when `maxInFlight` bodies are already being
    /// decoded or waiting for a thread (the caller answers 503, the device retries).
    func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async throws -> T? {
        guard inFlight.wrappingAdd(1, ordering: .relaxed).newValue <= maxInFlight else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        defer { inFlight.wrappingSubtract(1, ordering: .relaxed) }
        return try await pool.runIfActive {
            Self.yieldToRequestHandlers()
            return work()
        }
    }

    /// Nice +10 for the calling worker thread (Linux nice values are per thread), so that
    /// on a busy CPU a long decode gives way to the event loops and request handlers.
    private static func yieldToRequestHandlers() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
    }

    /// Runs with the application: the threads stop once the server has shut down.
    func run() async throws {
        try? await gracefulShutdown()  // throws only on cancellation, which also means "stop"
        try await pool.shutdownGracefully()
    }
}
