/// Manual paths (`PUT /v1/manual-paths/{id}`, docs/hub.md "Manual paths"): each rider's
/// request and the pieces made of it, keyed by (device, id) as records are, and counted as
/// the rider's rating on the streets in the transaction that stores it.
public protocol ManualPathStore: Sendable {
    /// The manual path the device stored under `id`; nil when none.
    func manualPath(device: String, id: String) async throws -> StoredManualPath?
    /// Stores `path` and adds `evidence` (its `increments`) to the street evidence, in one
    /// transaction, and answers nil; when the device already holds a path under its id,
    /// writes nothing and answers that one (the first body stored wins, as for records).
    func storeManualPath(_ path: StoredManualPath, evidence: [StreetIncrement]) async throws -> StoredManualPath?
}
