import Synchronization

/// A store's kept routing graph (`KeptGraph`), per `minRiders`, with the routing version
/// (`routing_version`) it was read at: built on the first search after the version moved
/// (a network change, a street import, new evidence), then shared by every search until it
/// moves again. One build at a time per version: searches arriving meanwhile wait for it
/// rather than each reading the whole network.
public final class RoutingCache: Sendable {
    private struct Kept {
        var version: Int64
        var graph: Task<KeptGraph, any Error>
    }
    private let kept = Mutex<[Int: Kept]>([:])

    public init() {}

    /// The graph at `version`, read by `read` unless kept. The version is read before the
    /// links: a graph holds the data of its version or later, and a later version read by
    /// the next search makes it read again, so no change is missed.
    public func graph(minRiders: Int, version: Int64, read: @escaping @Sendable () async throws -> KeptGraph) async throws -> KeptGraph {
        let (task, made) = kept.withLock { kept -> (Task<KeptGraph, any Error>, Bool) in
            if let k = kept[minRiders], k.version == version { return (k.graph, false) }
            let task = Task { try await read() }
            kept[minRiders] = Kept(version: version, graph: task)
            return (task, true)
        }
        do {
            return try await task.value
        } catch {
            // A failed read is not kept: the next search reads again.
            if made { kept.withLock { if $0[minRiders]?.version == version { $0[minRiders] = nil } } }
            throw error
        }
    }
}
