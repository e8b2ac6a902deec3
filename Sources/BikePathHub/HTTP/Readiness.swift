/// Whether the hub can serve: its database answers a query (the schema's versions)
/// within `deadline`. PostgreSQL that is down or unreachable makes a query wait for its
/// connect timeout; the probe answers at the deadline instead.
enum Readiness: Equatable {
    case ready
    case notReady(String)

    /// A load balancer's probe waits a few seconds at most; 2 s leaves it room.
    static let deadline: Duration = .seconds(2)

    static func check(_ store: any SchemaStore) async -> Readiness {
        await withTaskGroup(of: Readiness.self) { group in
            group.addTask {
                do {
                    let applied = try await store.appliedMigrations()
                    return applied.isEmpty ? .notReady("no schema: run `bikepath-hub migrate`") : .ready
                } catch {
                    return .notReady("\(error)".prefix(200).description)
                }
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return .notReady("no answer within \(deadline)")
            }
            let first = await group.next() ?? .notReady("no answer")
            group.cancelAll()
            return first
        }
    }
}
