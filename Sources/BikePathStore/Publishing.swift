import BikePathCore

/// What decides whether a confirmed draft leaves the device: the hub address and
/// the file's privacy ceiling (both from the configuration file) and the rider's
/// consent (in the store). The one rule behind `bikepathd drafts confirm`'s answer
/// and the review page's notice, so the two say the same thing (the page once
/// said "queued for publishing" with no hub and consent off).
public struct PublishingSetup: Sendable, Equatable {
    /// The hub's URL is set (`keys.hubURL`).
    public var hubConfigured: Bool
    /// The file's ceiling on trip sharing (`keys.shareTrips`) is not false.
    public var fileAllowsTrips: Bool
    /// The configuration keys the sentences name.
    public var keys: Keys

    /// The keys behind `hubConfigured` and `fileAllowsTrips`, as the daemon's key table spells them
    /// (`DaemonConfiguration.publishing`): this module does not see that table.
    public struct Keys: Sendable, Equatable {
        public var hubURL: String
        public var shareTrips: String

        public init(hubURL: String, shareTrips: String) { (self.hubURL, self.shareTrips) = (hubURL, shareTrips) }
    }

    public init(hubConfigured: Bool, fileAllowsTrips: Bool, keys: Keys) {
        self.hubConfigured = hubConfigured
        self.fileAllowsTrips = fileAllowsTrips
        self.keys = keys
    }

    /// Why a confirmed draft stays on the device, in the order they are checked.
    public enum Hold: Sendable, Equatable, CustomStringConvertible {
        /// No hub is set; `key` sets one.
        case noHub(key: String)
        /// The file forbids trip sharing by `key`.
        case forbiddenByFile(key: String)
        case consentOff

        public var description: String {
            switch self {
            case .noHub(let key): "no hub is configured (\(key))"
            case .forbiddenByFile(let key): "\(key) is false in the configuration file"
            case .consentOff: "trip sharing is off — `bikepathd sync consent trips on` sends it"
            }
        }
    }

    /// Why a draft confirmed now would stay on the device, or nil when sync sends it.
    public func hold(consent: Consent) -> Hold? {
        if !hubConfigured { return .noHub(key: keys.hubURL) }
        if !fileAllowsTrips { return .forbiddenByFile(key: keys.shareTrips) }
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
        var c = try pool.read(Store.consent)
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
    public func confirmedDraftHold(_ setup: PublishingSetup) async throws -> PublishingSetup.Hold? {
        setup.hold(consent: try await consent())
    }
}

/// Where a record stands in the outbox, in the rider's words: the one rule behind
/// `diagnose`, `sync status`, `status` and the review page's totals (`SyncDiagnosis`
/// counts by it; before, `diagnose` counted withheld records as pending and said
/// "1 pending" where `sync status` said "pending: none … withheld 1").
public enum PublishingState: String, Sendable, CaseIterable, RiderWord {
    /// Sync sends it at its next pass.
    case pending
    /// Consent is off for its stream, or it was marked not to send: it stays on the device.
    case withheld
    /// The hub acknowledged it.
    case sent
    /// The hub refused it for good; `sync requeue` puts it back.
    case quarantined

    public var word: String {
        switch self {
        case .pending: "waiting to send"
        case .withheld: "held on this device"
        case .sent: "sent"
        case .quarantined: "refused by the hub"
        }
    }
    public static var vocabularyName: String { "publishing state" }
}

extension SyncDiagnosis {
    /// How many records stand in `state`, over every kind.
    public func count(_ state: PublishingState) -> Int {
        switch state {
        case .pending: pending.values.reduce(0, +)
        case .withheld: withheld.values.reduce(0, +)
        case .sent: sent.values.reduce(0, +)
        case .quarantined: quarantined.count
        }
    }

    /// "1 waiting to send, 1 held on this device, 4 sent, 0 refused by the hub": the same line
    /// everywhere the outbox is summed up.
    public var summary: String {
        PublishingState.allCases.map { "\(count($0)) \($0.word)" }.joined(separator: ", ")
    }
}
