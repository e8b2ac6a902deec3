import Synchronization

/// Where a store's route inputs stand (`routing_version`, moved by triggers; `HubSchema`
/// step v16): `hard` moves when a kept graph is wrong (the streets were imported, or a
/// schema step ran), `soft` when its costs moved a little (a ride's links, riders, ratings,
/// obstacles, the evidence on the streets).
public struct RoutingVersion: Sendable, Equatable {
    public var hard: Int64, soft: Int64

    public init(hard: Int64, soft: Int64) { (self.hard, self.soft) = (hard, soft) }

    /// Whether a graph read at this version holds every change `other` holds.
    func holds(_ other: RoutingVersion) -> Bool { hard > other.hard || (hard == other.hard && soft >= other.soft) }
}

/// A store's kept routing graph (`KeptGraph`), per `minRiders`, with the version it was read
/// at. The concurrency and the clock of route search live here; the graph and the search
/// are pure. After a hard change a search waits for the new graph; after a soft one it is
/// answered on the last graph while one rebuild runs in the background, swapped in when
/// built, unless the graph has missed a change for longer than `staleness`: then the search
/// waits for that rebuild. A soft rebuild reads no sooner than the last build took after
/// it ended (`Kept.rested`). One build at a time per `minRiders` (a hard change cancels a
/// soft build): searches arriving meanwhile share it rather than each reading the network
/// (~350 MiB a graph at 9,965 km, docs/performance.md).
public final class RoutingCache: Sendable {
    /// A graph is served at most 60 s after a search first found a soft change it lacks: in
    /// release a build at 9,965 km takes 4.5 s on SQLite, 5.6 s on PostgreSQL, and a soft
    /// rebuild rests at most one build's time first, so a ride is routed on within 7–12 s
    /// (docs/performance.md). 60 s leaves 5× that for a loaded machine or a bigger city (a
    /// build under 30 s) before searches wait; a ride a minute old is one of thousands.
    public static let staleness: Duration = .seconds(60)

    private struct Build {
        let number: Int
        let version: RoutingVersion
        let task: Task<KeptGraph, any Error>
    }

    private struct Kept {
        var graph: KeptGraph?
        var version = RoutingVersion(hard: .min, soft: .min)
        var building: Build?
        /// The soft versions searches found newer than the graph's, each with when it was
        /// first found, oldest first: the oldest not in the graph dates its staleness.
        var sightings: [(soft: Int64, at: ContinuousClock.Instant)] = []
        /// When a soft rebuild may read: the last build's end plus its time, so that under a
        /// stream of rides rebuilding takes at most half of a core (a rebuild under 30 s
        /// still ends within `staleness`).
        var rested: ContinuousClock.Instant?
    }

    private struct State {
        var kept: [Int: Kept] = [:]
        var builds = 0
    }

    private enum Plan {
        case serve(KeptGraph)
        case wait(Task<KeptGraph, any Error>)
    }

    private let state = Mutex(State())
    private let clock = ContinuousClock()
    private let bound: Duration

    /// `staleness`: how long a graph may be served after a search found a soft change it lacks.
    public init(staleness: Duration = RoutingCache.staleness) { bound = staleness }

    /// The builds started so far (each a whole read of the network).
    public var buildsStarted: Int { state.withLock { $0.builds } }

    /// The graph for a search that read `version`, read by `read` when a build is due. The
    /// version is read before the links: a graph holds the data of its version or later.
    public func graph(
        minRiders: Int, version: RoutingVersion, read: @escaping @Sendable () async throws -> KeptGraph
    ) async throws -> KeptGraph {
        let now = clock.now
        let plan = state.withLock { state -> Plan in
            var kept = state.kept[minRiders] ?? Kept()
            defer { state.kept[minRiders] = kept }
            if let graph = kept.graph, kept.version.hard >= version.hard {
                if kept.version.holds(version) { return .serve(graph) }
                if version.soft > kept.sightings.last?.soft ?? kept.version.soft { kept.sightings.append((version.soft, now)) }
                let build = kept.building ?? start(minRiders, version, read, after: kept.rested, &kept, &state.builds)
                return now - kept.sightings[0].at < bound ? .serve(graph) : .wait(build.task)
            }
            if let build = kept.building, build.version.hard >= version.hard { return .wait(build.task) }
            kept.building?.task.cancel()
            return .wait(start(minRiders, version, read, after: nil, &kept, &state.builds).task)
        }
        switch plan {
        case .serve(let graph): return graph
        case .wait(let task): return try await task.value
        }
    }

    /// Returns when no build is running (the last one swapped in or failed).
    public func settled() async {
        while let task = state.withLock({ $0.kept.values.lazy.compactMap(\.building?.task).first }) { _ = await task.result }
    }

    /// Starts build number `builds + 1` of `version`, reading once `rested` passed; it swaps
    /// itself in when read, unless a later build replaced it, and is forgotten when it fails
    /// (the next search starts another).
    private func start(
        _ minRiders: Int, _ version: RoutingVersion, _ read: @escaping @Sendable () async throws -> KeptGraph,
        after rested: ContinuousClock.Instant?, _ kept: inout Kept, _ builds: inout Int
    ) -> Build {
        builds += 1
        let number = builds
        let task = Task { [self] in
            var began = clock.now
            let result: Result<KeptGraph, any Error>
            do {
                if let rested, rested > began {
                    try await Task.sleep(until: rested, clock: clock)
                    began = clock.now
                }
                result = .success(try await read())
            } catch { result = .failure(error) }
            let ended = clock.now
            state.withLock { state in
                guard var kept = state.kept[minRiders], kept.building?.number == number else { return }
                kept.building = nil
                kept.rested = ended + (ended - began)
                if case .success(let graph) = result {
                    (kept.graph, kept.version) = (graph, version)
                    kept.sightings.removeAll { $0.soft <= version.soft }
                }
                state.kept[minRiders] = kept
            }
            return try result.get()
        }
        let build = Build(number: number, version: version, task: task)
        kept.building = build
        return build
    }
}
