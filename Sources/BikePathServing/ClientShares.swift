import Synchronization

/// Connections held per client, against a policy's `perClient` and `maxConnections`:
/// shared by every connection of one server (thread-safe).
public final class ClientShares: Sendable {
    public let policy: ConnectionPolicy
    private let held = Mutex<[String: Int]>([:])

    public init(policy: ConnectionPolicy) {
        self.policy = policy
    }

    /// Takes a slot for `client`; false when it already holds its share.
    public func take(_ client: String) -> Bool {
        held.withLock { held in
            let now = held[client, default: 0]
            guard now < policy.perClient else { return false }
            held[client] = now + 1
            return true
        }
    }

    /// Gives back a slot taken with `take`.
    public func release(_ client: String) {
        held.withLock { held in
            guard let now = held[client] else { return }
            held[client] = now > 1 ? now - 1 : nil
        }
    }

    /// Slots `client` holds now.
    public func count(_ client: String) -> Int {
        held.withLock { $0[client, default: 0] }
    }

    /// The client holding the most slots, and how many (nil when none is held).
    public func largest() -> (client: String, count: Int)? {
        held.withLock { held in held.max { $0.value < $1.value }.map { ($0.key, $0.value) } }
    }
}
