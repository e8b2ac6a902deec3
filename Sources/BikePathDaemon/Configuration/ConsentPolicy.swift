import BikePathCore
import BikePathStore

/// What the configuration file allows of the rider's consent (docs/sync.md),
/// written once for `bikepathd sync consent` (which refuses a change against it)
/// and `run` (which records it at start, apart from the rider's switches): a
/// `privacy.share_*` key set to false forbids its stream without rewriting the
/// rider's choice, an absent key leaves that choice in force. Nothing in
/// the file ever turns a stream on: consent is on only by the rider's own
/// `sync consent STREAM on` (were crash detection to turn SOS sharing on at every
/// start, it would undo the rider's `sync consent sos off`). Crash detection
/// with SOS sharing off is reported instead (`sosStaysOnDevice`).
public enum ConsentPolicy {
    /// Why the file refuses a consent change.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case forbiddenByFile(SyncStream)

        public var description: String {
            switch self {
            case .forbiddenByFile(let stream):
                "\(DaemonConfiguration.Privacy.key(stream)) is false in the configuration file: the stream stays off — change it there first"
            }
        }
    }

    /// - Throws: `Refusal` when the file does not allow `stream` to be turned `on`.
    ///   Turning a stream off is always the rider's to do.
    public static func check(_ stream: SyncStream, on: Bool, file: DaemonConfiguration) throws(Refusal) {
        if on, file.privacy.ceiling(stream) == false { throw .forbiddenByFile(stream) }
    }

    /// The streams the rider allows that the file forbids, in stream order: they stay
    /// on the device while the key stays (`Store.effectiveConsent`).
    public static func corrections(of consent: Consent, file: DaemonConfiguration) -> [SyncStream] {
        SyncStream.allCases.filter { consent.allows($0) && file.privacy.ceiling($0) == false }
    }

    /// The one sentence `run`'s log, `status`, `diagnose`, `config check` and `sync
    /// consent` say when crash detection is on while the rider's SOS sharing is off: an
    /// SOS would be raised and kept on the device. Nil when that is not the case.
    public static func sosStaysOnDevice(consent: Consent, crashDetection: Bool) -> String? {
        guard crashDetection, !consent.sos else { return nil }
        let crash = ConfigurationKey.path(\.crash.enabled)
        return "sync: crash detection is on (\(crash)) but SOS sharing is off: an SOS would stay on this device "
            + "— `bikepathd sync consent sos on` lets it leave (or set \(crash) = false)"
    }

    /// `sosStaysOnDevice` for the consent kept in `store`; a consent that cannot be read says so.
    public static func sosStaysOnDevice(store: Store, crashDetection: Bool) async -> String? {
        guard crashDetection else { return nil }
        do { return sosStaysOnDevice(consent: try await store.consent(), crashDetection: true) } catch {
            return "sync: crash detection is on but the SOS consent cannot be read (\(error)): an SOS may stay on this device"
        }
    }

    /// What becomes of a confirmed draft: what `drafts confirm` says (text and `sync` of its JSON).
    public enum ConfirmedDraftSync: Equatable, Sendable {
        /// In the outbox; sync sends it on its next pass (`run` or `bikepathd sync`).
        case queued
        /// In the outbox, but this configuration names no hub: `bikepathd sync --hub URL`
        /// (or `sync.hub_url`) sends it; saying it "stays on this device" would be false.
        case queuedWithoutHub
        /// Withheld: it stays on the device, and why.
        case heldBack(PublishingSetup.Hold)

        /// `sync` of `drafts confirm --json`: `queued`, or why the draft stays on the device.
        public var json: String {
            switch self {
            case .queued, .queuedWithoutHub: "queued"
            case .heldBack(let hold): hold.description
            }
        }

        /// Whether the daemon was woken to send the confirmation and, when not, what it waits
        /// for, why, and when it leaves: `woken`, `waits_for`, `why` and `leaves` of
        /// `drafts confirm --json`, and the words of its text (one rule for both).
        public struct Departure: Equatable, Sendable {
            /// What a confirmation that was not sent at once waits for (stable JSON values, docs/json.md).
            public enum WaitsFor: String, Sendable, Equatable {
                /// No daemon answers on the status socket.
                case daemon
                /// The running daemon syncs nothing (no hub, the token refused, …).
                case daemonSync = "daemon_sync"
                /// This configuration names no hub.
                case hub
                /// The rider's trip sharing is off.
                case consent
                /// The configuration file forbids trips to leave (`privacy.share_trips = false`).
                case configuration
                /// Nobody asked the daemon: sync's next pass (every `sync.interval_s`) sends it.
                case nextPass = "next_pass"
            }
            public var woken: Bool
            public var waitsFor: WaitsFor?
            public var why: String?
            public var leaves: String?

            static let sending = Departure(woken: true)
            static func waiting(_ waitsFor: WaitsFor, why: String, leaves: String) -> Departure {
                Departure(woken: false, waitsFor: waitsFor, why: why, leaves: leaves)
            }
        }

        /// Where the confirmation stands; `now`: what the running daemon said when asked to send
        /// it at once (asked only for `queued`).
        public func departure(now: SyncNow?) -> Departure {
            switch (self, now) {
            case (.queued, .sending?): .sending
            case (.queued, .daemonSyncOff(let why)?):
                .waiting(.daemonSync, why: "the running daemon syncs nothing (\(why))", leaves: "at `bikepathd sync run --once`")
            case (.queued, .noDaemon(let socket)?):
                .waiting(
                    .daemon, why: "no daemon answers on \(socket)",
                    leaves: "when `bikepathd run` starts, or now with `bikepathd sync run --once`")
            case (.queued, nil):
                .waiting(
                    .nextPass, why: "the daemon was not asked",
                    leaves: "at sync's next pass (every \(ConfigurationKey.path(\.sync.intervalS)))")
            case (.queuedWithoutHub, _):
                .waiting(
                    .hub, why: PublishingSetup.Hold.noHub(key: ConfigurationKey.path(\.sync.hubURL)).description,
                    leaves: "when `bikepathd sync --hub URL` runs or a hub is set")
            case (.heldBack(let hold), _):
                switch hold {
                case .consentOff:
                    .waiting(.consent, why: hold.description, leaves: "when `bikepathd sync consent trips on` turns trip sharing on")
                case .forbiddenByFile:
                    .waiting(
                        .configuration, why: hold.description,
                        leaves: "when \(ConfigurationKey.path(\.privacy.shareTrips)) is no longer false")
                case .noHub:
                    .waiting(.hub, why: hold.description, leaves: "when `bikepathd sync --hub URL` runs or a hub is set")
                }
            }
        }

        /// `drafts confirm`'s line for draft `id`: `departure(now:)` in words.
        public func text(id: String, now: SyncNow? = nil) -> String {
            let d = departure(now: now)
            if d.woken { return "draft \(id) confirmed; the daemon is sending it to the hub now (`bikepathd sync status` shows it sent)" }
            if case .heldBack(let hold) = self { return "draft \(id) confirmed; it stays on this device: \(hold)" }
            return "draft \(id) confirmed and \(PublishingState.pending.word); \(d.why ?? ""), so it leaves \(d.leaves ?? "")"
        }

        /// What became of the request to send a confirmation at once (`StatusClient.syncNow`).
        public enum SyncNow: Equatable, Sendable {
            /// The daemon's sync loop was woken: the ride leaves within seconds when the hub answers.
            case sending
            /// A daemon runs and syncs nothing, and why.
            case daemonSyncOff(String)
            /// No daemon answers on this status socket.
            case noDaemon(String)
        }

        /// Asks the daemon on `socket` to send a `queued` confirmation now; nil when the draft is not to be sent.
        public func askDaemon(socket: String) -> SyncNow? {
            guard self == .queued else { return nil }
            do {
                let reply = try StatusClient.syncNow(path: socket)
                return reply.woken ? .sending : .daemonSyncOff(reply.off ?? "sync is off")
            } catch {
                return .noDaemon(socket)
            }
        }
    }

    /// Whether a confirmed draft will leave the device, by the file's ceiling and the rider's consent.
    /// - Throws: the store's error when its consent cannot be read.
    /// One rule with the review page: `PublishingSetup.hold`, asked first as if a hub were
    /// set (the file's ceiling and the consent keep a draft back whatever the hub), then
    /// whether one is.
    public static func confirmedDraft(store: Store, file: DaemonConfiguration) async throws -> ConfirmedDraftSync {
        let setup = file.publishing
        var asIfHubSet = setup
        asIfHubSet.hubConfigured = true
        if let hold = try await store.confirmedDraftHold(asIfHubSet) {
            return .heldBack(hold)
        }
        return setup.hubConfigured ? .queued : .queuedWithoutHub
    }
}

extension DaemonConfiguration {
    /// What of this file decides whether a confirmed draft is published (`PublishingSetup`).
    public var publishing: PublishingSetup {
        PublishingSetup(
            hubConfigured: !sync.hubURL.isEmpty, fileAllowsTrips: privacy.shareTrips != false,
            keys: PublishingSetup.Keys(
                hubURL: ConfigurationKey.path(\.sync.hubURL), shareTrips: ConfigurationKey.path(\.privacy.shareTrips)))
    }
}
