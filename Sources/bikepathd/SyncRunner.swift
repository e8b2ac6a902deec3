import BikePathCore
import BikePathDaemon
import BikePathStore
import BikePathSync
import Foundation
import Logging
import Synchronization

/// Works the outbox in the background of `bikepathd run`: a pass every
/// `sync.interval_s`, at once when the loop queued work (trip end, SOS), with
/// backoff after failures. A missing network is a failed pass, never an exit.
final class SyncRunner: Sendable {
    let engine: SyncEngine
    let client: HubClient
    private let board: StatusBoard
    private let interval: Double
    private let logger: Logger
    private let publish: @Sendable (DaemonEvent) -> Void
    private let wake = Atomic<Bool>(false)

    init(engine: SyncEngine, client: HubClient, board: StatusBoard, interval: Double, logger: Logger,
         publish: @escaping @Sendable (DaemonEvent) -> Void) {
        self.engine = engine
        self.client = client
        self.board = board
        self.interval = interval
        self.logger = logger
        self.publish = publish
        board.updateSync { $0.enabled = true }
    }

    func workQueued() { wake.store(true, ordering: .releasing) }

    func run() async {
        var failures = 0
        while !Task.isCancelled {
            let result = await engine.syncOnce()
            let delay: Double
            let text: String
            switch result {
            case .drained(let sent, let quarantined):
                failures = 0
                delay = interval
                text = "drained; sent \(sent), quarantined \(quarantined)"
                if sent > 0 || quarantined > 0 { logger.info("sync: \(text)") }
            case .failed(let reason, let retryAfter):
                failures += 1
                let backoff = await engine.backoffDelay(afterFailures: failures)
                delay = retryAfter ?? min(interval, backoff)
                text = "failed: \(reason)"
                logger.warning("sync: \(text); next try in \(Int(delay.rounded())) s")
            case .unauthorized(let reason):
                delay = 0
                text = "stopped: \(reason)"
                logger.error("sync: \(text); the hub refused the token, sync stays off until restart")
            case .misconfigured(let reason):
                delay = 0
                text = "stopped: \(reason)"
                logger.error("sync: \(text); sync stays off until the hub URL is fixed and the daemon restarted")
            }
            let succeeded: Bool = if case .drained = result { true } else { false }
            board.updateSync { s in
                s.lastAttemptAt = isoNow()
                s.lastResult = text
                s.succeeded = succeeded
            }
            if case .drained(let sent, _) = result, sent == 0 {} else {
                publish(DaemonEvent(kind: "sync", message: text, fields: ["ok": "\(succeeded)"]))
            }
            switch result {
            case .unauthorized, .misconfigured: return
            case .drained, .failed: break
            }
            let deadline = Date().addingTimeInterval(delay)
            while Date() < deadline, !Task.isCancelled, !wake.exchange(false, ordering: .acquiringAndReleasing) {
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
    }

    /// The file's consent switches are a ceiling: one that is off turns the
    /// stream off in the store too; one that is on leaves the rider's choice
    /// (`bikepathd sync consent`) alone. Privacy zones from the file are added to
    /// the store's, and the stricter trim wins.
    static func applyFilePolicy(_ configuration: DaemonConfiguration, store: Store, logger: Logger) throws {
        let consent = try SyncSettings.consent(store)
        let ceiling: [(SyncStream, Bool, Bool, String)] = [
            (.tripsAndDrafts, configuration.privacy.shareTrips, consent.tripsAndDrafts, "share_trips"),
            (.sos, configuration.privacy.shareSOS, consent.sos, "share_sos"),
            (.livePosition, configuration.privacy.shareLivePosition, consent.livePosition, "share_live_position"),
        ]
        for (stream, allowed, on, key) in ceiling where on && !allowed {
            try SyncSettings.setConsent(store, stream, false)
            logger.notice("sync: privacy.\(key) is false in the configuration: \(stream.rawValue) turned off")
        }
        var privacy = try SyncSettings.privacy(store)
        for zone in configuration.privacy.zones {
            privacy.zones.removeAll { $0.name == zone.name }
            privacy.zones.append(PrivacyZone(name: zone.name, center: Coordinate(latitude: zone.lat, longitude: zone.lon),
                                             radiusMeters: zone.radiusM))
        }
        privacy.trim.seconds = max(privacy.trim.seconds, configuration.privacy.trimS)
        privacy.trim.meters = max(privacy.trim.meters, configuration.privacy.trimM)
        try SyncSettings.setPrivacy(store, privacy)
    }
}
