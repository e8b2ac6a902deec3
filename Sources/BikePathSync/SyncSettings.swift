import BikePathCore
import BikePathStore
import Foundation

/// Consent and privacy settings, kept in the store's `meta` table so that the
/// CLI and a running daemon see the same switches at once.
public enum SyncSettings {
    static let consentKey = "sync.consent"
    static let privacyKey = "sync.privacy"

    public static func consent(_ store: Store) throws -> Consent {
        try store.metaValue(consentKey).flatMap { try? JSONDecoder().decode(Consent.self, from: Data($0.utf8)) } ?? Consent()
    }

    public static func privacy(_ store: Store) throws -> PrivacySettings {
        try store.metaValue(privacyKey).flatMap { try? JSONDecoder().decode(PrivacySettings.self, from: Data($0.utf8)) } ?? PrivacySettings()
    }

    /// Turns a stream on or off. Off takes effect at once: queued records of the
    /// stream are marked not-to-send and stay on the device.
    public static func setConsent(_ store: Store, _ stream: SyncStream, _ on: Bool) throws {
        var c = try consent(store)
        c.set(stream, on)
        try store.setMetaValue(consentKey, String(decoding: try JSONEncoder().encode(c), as: UTF8.self))
        if !on { try store.withholdOutbox(kinds: kinds(of: stream)) }
    }

    public static func setPrivacy(_ store: Store, _ settings: PrivacySettings) throws {
        try store.setMetaValue(privacyKey, String(decoding: try JSONEncoder().encode(settings), as: UTF8.self))
    }

    /// The outbox kinds that belong to a stream (live position is never queued).
    public static func kinds(of stream: SyncStream) -> [OutboxKind] {
        switch stream {
        case .tripsAndDrafts: [.trip, .draft, .confirmation]
        case .sos: [.sos]
        case .livePosition: []
        }
    }

    static func stream(of kind: OutboxKind) -> SyncStream {
        kind == .sos ? .sos : .tripsAndDrafts
    }
}
