import Foundation

/// The shared map as last built from the database, rebuilt when older than `maxAge`.
/// Derived from the database only, so replicas answer alike once each has rebuilt
/// (within `maxAge` of a new confirmation). One rebuild at a time per process.
actor SharedMapCache {
    private let store: any HubStore
    private let maxAge: Duration
    private var built: (at: ContinuousClock.Instant, map: SharedMap)?
    private var rebuilding: Task<SharedMap, any Error>?

    init(store: any HubStore, maxAge: Duration) {
        self.store = store
        self.maxAge = maxAge
    }

    func current() async throws -> SharedMap {
        let now = ContinuousClock.now
        if let built, now - built.at < maxAge { return built.map }
        if let rebuilding { return try await rebuilding.value }
        let store = store
        let task = Task { SharedMap.build(confirmations: try await store.confirmations()) }
        rebuilding = task
        defer { rebuilding = nil }
        let map = try await task.value
        built = (now, map)
        return map
    }
}
