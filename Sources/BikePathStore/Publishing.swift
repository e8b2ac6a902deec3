import BikePathCore

/// What decides whether a confirmed draft leaves the device: the hub address and
/// the file's privacy ceiling (both from the configuration file) and the rider's
/// consent (in the store). The one rule behind `bikepathd drafts confirm`'s answer
/// and the review page's notice, so the two say the same thing (the page once
/// said "queued for publishing" with no hub and consent off).
public struct PublishingSetup: Sendable, Equatable {
    /// `sync.hub_url` is set.
    public var hubConfigured: Bool
    /// `privacy.share_trips` is not false in the configuration file.
    public var fileAllowsTrips: Bool

    public init(hubConfigured: Bool, fileAllowsTrips: Bool) {
        self.hubConfigured = hubConfigured
        self.fileAllowsTrips = fileAllowsTrips
    }

    /// Why a confirmed draft stays on the device, in the order they are checked.
    public enum Hold: Sendable, Equatable, CustomStringConvertible {
        case noHub
        case forbiddenByFile
        case consentOff

        public var description: String {
            switch self {
            case .noHub: "no hub is configured (sync.hub_url)"
            case .forbiddenByFile: "privacy.share_trips is false in the configuration file"
            case .consentOff: "trip sharing is off — `bikepathd sync consent trips on` sends it"
            }
        }
    }

    /// Why a draft confirmed now would stay on the device, or nil when sync sends it.
    public func hold(consent: Consent) -> Hold? {
        if !hubConfigured { return .noHub }
        if !fileAllowsTrips { return .forbiddenByFile }
        if !consent.tripsAndDrafts { return .consentOff }
        return nil
    }
}

extension Store {
    /// Turns a consent stream on or off, and it means what it says at once (docs/sync.md):
    /// off marks the stream's queued records not-to-send (they stay on the device); on
    /// lets every queued record of the stream go, including those queued while it was off.
    /// `SyncSettings.setConsent` (the CLI) and the review page both call this.
    /// - Throws: `StoreError.unreadableSetting` when the stored consent cannot be read; a GRDB
    ///   `DatabaseError` when it cannot be written.
    public func setConsent(_ stream: SyncStream, _ on: Bool) throws {
        var c = try consent()
        c.set(stream, on)
        try setSetting(Store.consentKey, c)
        let kinds = OutboxKind.allCases.filter { $0.stream == stream }
        if on {
            try releaseWithheld(kinds: kinds)
        } else {
            try withholdOutbox(kinds: kinds)
        }
    }

    /// Why a confirmed draft stays on this device under `setup` and the stored consent, or nil when sync sends it.
    /// - Throws: `StoreError.unreadableSetting` when the consent cannot be read.
    public func confirmedDraftHold(_ setup: PublishingSetup) throws -> PublishingSetup.Hold? {
        setup.hold(consent: try consent())
    }

    /// `confirmedDraftHold(_:)` with the consent read off the caller's thread (the review page).
    public func confirmedDraftHold(_ setup: PublishingSetup) async throws -> PublishingSetup.Hold? {
        setup.hold(consent: try await consent())
    }
}
