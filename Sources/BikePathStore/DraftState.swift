/// The life of a draft (BBP R9/R15: nothing is published before the rider confirms).
///
///     pending ──confirm──> confirmed ──enqueue──> queued ──sync──> synced
///        └────reject────> rejected
///
/// Everything else is refused. Only a pending draft can be edited.
public enum DraftState: String, Sendable, Codable, CaseIterable {
    case pending, confirmed, rejected, queued, synced

    /// True for the transitions a draft may take: pending → confirmed or rejected, confirmed →
    /// queued, queued → synced.
    public func canBecome(_ next: DraftState) -> Bool {
        switch (self, next) {
        case (.pending, .confirmed), (.pending, .rejected), (.confirmed, .queued), (.queued, .synced): true
        default: false
        }
    }
}
