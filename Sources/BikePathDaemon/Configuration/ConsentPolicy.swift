import BikePathCore
import BikePathStore

/// What the configuration file allows of the rider's consent (docs/sync.md),
/// written once for `bikepathd sync consent` (which refuses a change against it)
/// and `run` (which applies it at start): a `privacy.share_*` key set to false
/// forbids its stream, an absent key leaves the rider's choice alone, and crash
/// detection on needs SOS sharing (an SOS that cannot leave the device is worse
/// than none).
public enum ConsentPolicy {
    /// Why the file refuses a consent change.
    public enum Refusal: Error, Equatable, CustomStringConvertible {
        case forbiddenByFile(SyncStream)
        case neededByCrashDetection

        public var description: String {
            switch self {
            case .forbiddenByFile(let stream):
                "\(DaemonConfiguration.Privacy.key(stream)) is false in the configuration file: the stream stays off — change it there first"
            case .neededByCrashDetection:
                "crash detection is on (crash.enabled in the configuration file): an SOS must be able to leave the device — disable crash detection first"
            }
        }
    }

    /// - Throws: `Refusal` when the file does not allow `stream` to be turned `on` (or off).
    public static func check(_ stream: SyncStream, on: Bool, file: DaemonConfiguration) throws(Refusal) {
        if on, file.privacy.ceiling(stream) == false { throw .forbiddenByFile(stream) }
        if !on, stream == .sos, file.crash.enabled { throw .neededByCrashDetection }
    }

    /// The switches to flip so that `consent` obeys the file, in stream order.
    public static func corrections(of consent: Consent, file: DaemonConfiguration) -> [(stream: SyncStream, on: Bool)] {
        var out = SyncStream.allCases.filter { consent.allows($0) && file.privacy.ceiling($0) == false }.map { ($0, false) }
        if file.crash.enabled, !consent.sos { out.append((.sos, true)) }
        return out
    }

    /// Why a confirmed draft will not leave the device yet, or nil when sync will send it.
    /// The rule itself is `PublishingSetup.hold` (BikePathStore), shared with the review page.
    /// - Throws: the store's error when its consent cannot be read.
    public static func confirmedDraftHeldBack(store: Store, file: DaemonConfiguration) throws -> String? {
        try store.confirmedDraftHold(file.publishing)?.description
    }
}

extension DaemonConfiguration {
    /// What of this file decides whether a confirmed draft is published (`PublishingSetup`).
    public var publishing: PublishingSetup {
        PublishingSetup(hubConfigured: !sync.hubURL.isEmpty, fileAllowsTrips: privacy.shareTrips != false)
    }
}
