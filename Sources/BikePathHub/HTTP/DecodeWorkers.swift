import Foundation
import NIOPosix
import ServiceLifecycle
import Synchronization

/// Threads of their own for the CPU-bound part of a request (inflate, shape check,
/// JSON decoding, validation, canonical encoding), so that a costly body never
/// holds up the request handlers on Swift's shared cooperative pool:
/// `GET /v1/health` answers while the workers are busy. Two lanes by body size: a ride's
/// upload (a few KB to ~100 KB) is decoded in milliseconds at nice +10; a large body
/// (a 12 MB giant took 4.3 s) waits for the large lane's one thread at nice 19, so that a
/// stream of them never takes the small lane's threads, nor much of a busy CPU from them
/// (a nice-19 thread weighs 15 against a nice-10 one's 110 in Linux's scheduler).
final class DecodeWorkers: Service {
    private let small: NIOThreadPool
    private let large: NIOThreadPool
    private let inFlight = Atomic<Int>(0)
    private let maxInFlight: Int

    /// Bodies of more bytes than this (as received, before inflating) take the large lane: a
    /// sync batch of 200 rides is ~1 MB of JSON, ~250 KB gzipped.
    static let largeBody = 256 * 1024

    init(threads: Int = HubLimits.decodeThreads, maxInFlight: Int = HubLimits.maxDecoding) {
        small = NIOThreadPool(numberOfThreads: threads)
        large = NIOThreadPool(numberOfThreads: 1)
        small.start()
        large.start()
        self.maxInFlight = maxInFlight
    }

    /// `work` on the lane for a body of `bytes`, or nil at once when `maxInFlight` bodies are
    /// already being decoded or waiting for a thread (the caller answers 503, the device retries).
    func run<T: Sendable>(bytes: Int, _ work: @escaping @Sendable () -> T) async throws -> T? {
        guard inFlight.wrappingAdd(1, ordering: .relaxed).newValue <= maxInFlight else {
            inFlight.wrappingSubtract(1, ordering: .relaxed)
            return nil
        }
        defer { inFlight.wrappingSubtract(1, ordering: .relaxed) }
        let (pool, nice): (NIOThreadPool, Int32) = bytes > Self.largeBody ? (large, 19) : (small, 10)
        return try await pool.runIfActive {
            Self.yieldToRequestHandlers(nice: nice)
            return work()
        }
    }

    /// `nice` for the calling worker thread (Linux nice values are per thread), so that on a
    /// busy CPU a long decode gives way to the event loops and request handlers.
    private static func yieldToRequestHandlers(nice: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }

    /// Runs with the application: the threads stop once the server has shut down.
    func run() async throws {
        try? await gracefulShutdown()  // throws only on cancellation, which also means "stop"
        try await small.shutdownGracefully()
        try await large.shutdownGracefully()
    }
}
