import Foundation
import ServiceLifecycle

/// What `PipelineService` runs on its thread: `run` returns once everything is
/// committed, after `requestStop` or at the end of its input (a recording).
public protocol PipelineLoop: AnyObject, Sendable {
    func run() throws
    func requestStop()
}

/// The pipeline thread as a service. Graceful shutdown (or cancellation) asks
/// the loop to stop, and the service returns only once the loop has committed
/// everything: the services shut down after it (sync, watchdog, status socket)
/// and the process exit never overtake a commit. The loop ending by itself (a
/// replay's end) is a success; a loop that fails makes the service throw
/// `PipelineFailure`.
public struct PipelineService: Service, CustomStringConvertible {
    let loop: any PipelineLoop

    /// Creates the service running `loop` on its own thread.
    public init(loop: any PipelineLoop) { self.loop = loop }

    public var description: String { "pipeline" }

    /// Runs the loop on its own thread until it ends; asks it to stop on graceful shutdown or
    /// cancellation.
    /// - Throws: `PipelineFailure` wrapping the loop's error when the loop fails.
    public func run() async throws {
        let loop = loop
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await SampleLoopThread.run(named: "pipeline") { try loop.run() }
        } onCancelOrGracefulShutdown: {
            loop.requestStop()
        }
    }
}

/// The pipeline loop threw: the daemon stops (exit 1) and systemd restarts it.
/// `underlying` is what the loop threw (a `StoreError`, a full disk's `DiskFull`, …).
public struct PipelineFailure: Error, CustomStringConvertible {
    public let underlying: any Error
    public var description: String { "\(underlying)" }
}
