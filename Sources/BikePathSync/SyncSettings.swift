import BikePathCore
import BikePathStore
import Foundation

/// Consent and privacy settings, kept in the store's `meta` table so that the
/// CLI and a running daemon see the same switches at once.
public enum SyncSettings {
    /// The rider's consent; every stream off when none was ever set. Stored
    /// settings that cannot be read are a `StoreError.unreadableSetting`, never "off" or "on" by guess.
    public static func consent(_ store: Store) async throws -> Consent { try await store.consent() }

    /// The privacy zones and trimming; the defaults (no zones, 30 s / 30 m) when
    /// none were ever set. Settings that cannot be read fail closed: an error,
    /// so that nothing is sent until they are readable (falling back to "no
    /// zones" would publish positions inside them). Read off the caller's thread.
    public static func privacy(_ store: Store) async throws -> PrivacySettings {
        try await store.setting(Store.privacyKey) ?? PrivacySettings()
    }

    /// Turns a stream on or off, and consent means what it says at once (docs/sync.md):
    /// off marks the stream's queued records not-to-send (they stay on the device);
    /// on lets every queued record of the stream go, including those queued
    /// (a draft confirmed, an SOS raised) while it was off.
    public static func setConsent(_ store: Store, _ stream: SyncStream, _ on: Bool) throws {
        // The rule lives in the store so the review page (which does not use sync) flips the same switch.
        try store.setConsent(stream, on)
    }

    /// Stores the rider's privacy settings (zones, trim); the next queueing and sending use them.
    /// - Throws: `EncodingError` or a GRDB `DatabaseError` when they cannot be stored.
    public static func setPrivacy(_ store: Store, _ settings: PrivacySettings) throws {
        try store.setSetting(Store.privacyKey, settings)
    }

    /// The outbox kinds that belong to a stream (live position is never queued).
    public static func kinds(of stream: SyncStream) -> [OutboxKind] {
        OutboxKind.allCases.filter { $0.stream == stream }
    }

    static func stream(of kind: OutboxKind) -> SyncStream { kind.stream }
}
