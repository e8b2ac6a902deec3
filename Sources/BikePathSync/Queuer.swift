import BikePathAPI
import BikePathCore
import BikePathStore
import Foundation

/// Puts closed trips and pending-draft revisions into the outbox, already
/// private (trimmed, zone-free), when the trips-and-drafts stream is allowed.
/// SOS events and confirmations are queued by the store itself.
public enum Queuer {
    /// Queues every closed trip (and, with `includeDrafts`, every pending draft revision) not
    /// yet queued, in wire form with `privacy` applied; drops unsent older revisions of a
    /// draft. Returns how many records were new.
    /// - Throws: `StoreError` (e.g. `noSuchDraft`) or a GRDB `DatabaseError` from the store;
    ///   `EncodingError` when a record cannot be encoded.
    @discardableResult
    public static func queueNew(_ store: Store, privacy: PrivacySettings, includeDrafts: Bool = true) async throws -> Int {
        let builder = UploadBuilder(privacy: privacy)
        var queued = 0
        for candidate in try await store.syncCandidates(includeDrafts: includeDrafts) {
            let doc = try await store.draft(candidate.draftID)
            let payload: Data
            switch candidate.kind {
            case .trip: payload = try WireJSON.encode(builder.trip(doc))
            case .draft: payload = try WireJSON.encode(builder.draft(doc, uploadID: candidate.recordID))
            default: continue
            }
            if try store.enqueueForSync(kind: candidate.kind, id: candidate.recordID, payload: String(decoding: payload, as: UTF8.self)) {
                queued += 1
            }
            if candidate.kind == .draft { try store.dropUnsentDraftRevisions(draftID: candidate.draftID, keeping: candidate.recordID) }
        }
        return queued
    }
}
