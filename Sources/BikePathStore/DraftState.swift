import BikePathCore

/// The life of a draft (BBP R9/R15: nothing is published before the rider confirms).
///
///     pending ──confirm──> confirmed ──enqueue──> queued ──sync──> synced
///      ↑  └────reject────> rejected
///      └─────reopen──────────┘
///
/// Everything else is refused. Only a pending draft can be edited. A rejected
/// draft never left the device (nothing of it is queued), so the rider may take
/// the rejection back (`reopenDraft`, the review page's "Undo reject"); a confirmed
/// one is in the outbox at once and cannot.
public enum DraftState: String, Sendable, Codable, CaseIterable {
    case pending, confirmed, rejected, queued, synced

    /// True for the transitions a draft may take: pending → confirmed or rejected, rejected →
    /// pending (undo a rejection), confirmed → queued, queued → synced.
    public func canBecome(_ next: DraftState) -> Bool {
        switch (self, next) {
        case (.pending, .confirmed), (.pending, .rejected), (.rejected, .pending), (.confirmed, .queued), (.queued, .synced): true
        default: false
        }
    }
}

/// A draft's state in the rider's words, the review page's and the CLI's alike: "queued"
/// said the ride was going somewhere even with no hub set (where it goes is the sharing
/// line's job), and "synced" is what the rider knows as published.
extension DraftState: RiderWord {
    public var word: String {
        switch self {
        case .pending: "to review"
        case .confirmed, .queued: "confirmed"
        case .rejected: "rejected"
        case .synced: "published"
        }
    }
    public static var vocabularyName: String { "draft state" }
}
