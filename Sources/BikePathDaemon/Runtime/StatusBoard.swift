import Foundation
import Synchronization

/// What the parts of the running daemon last reported, read by the status socket
/// on each request. Each part writes only its own fields.
public final class StatusBoard: Sendable {
    /// The pipeline's part: the trip, the last fix, the outbox length and a store problem.
    public struct Pipeline: Sendable, Equatable {
        public var tripState = "idle"
        public var tripID: String?
        public var tripDistanceM: Double?
        public var tripDurationS: Double?
        public var lastFixLat: Double?
        public var lastFixLon: Double?
        public var lastFixAt: Double?  // monotonic seconds when the pipeline got it
        public var queueLength = 0
        /// Why the store cannot take what the chain produces (a full disk), for `degraded`.
        public var storeProblem: String?
        /// Creates the state before the first pass: idle, no fix.
        public init() {}
    }

    /// The sync loop's part: whether sync is on and its last attempt.
    public struct SyncState: Sendable, Equatable {
        public var enabled = false
        public var lastAttemptAt: String?
        public var lastResult: String?
        public var succeeded: Bool?
        /// Creates the state before any sync: off, no attempt.
        public init() {}
    }

    private let pipelineState = Mutex(Pipeline())
    private let syncState = Mutex(SyncState())

    /// Creates an empty board.
    public init() {}

    public var pipeline: Pipeline { pipelineState.withLock { $0 } }
    public var sync: SyncState { syncState.withLock { $0 } }

    /// Changes the pipeline's part under the board's lock.
    public func updatePipeline(_ body: (inout Pipeline) -> Void) { pipelineState.withLock { body(&$0) } }
    /// Changes the sync loop's part under the board's lock.
    public func updateSync(_ body: (inout SyncState) -> Void) { syncState.withLock { body(&$0) } }
}

/// Says once when a reason to run degraded appears and once when it goes away.
public struct DegradedTracker: Sendable {
    public private(set) var current: [String] = []
    /// Creates a tracker with no reason to run degraded.
    public init() {}

    /// Returns (appeared, cleared) since the previous call.
    public mutating func update(_ reasons: [String]) -> (appeared: [String], cleared: [String]) {
        let appeared = reasons.filter { !current.contains($0) }
        let cleared = current.filter { !reasons.contains($0) }
        current = reasons
        return (appeared, cleared)
    }
}
