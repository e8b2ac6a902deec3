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

    /// The rider's consent in the store is the one switch sync reads. The file
    /// only forbids: a `privacy.share_*` key written as false turns the stream
    /// off (and `sync consent` refuses to turn it on); an absent key leaves the
    /// rider's choice alone. Crash detection on means an SOS must be able to
    /// leave, so it turns SOS sharing on (`config check` refuses it with
    /// `share_sos = false`). Privacy zones from the file are added to the
    /// store's, and the stricter trim wins.
    static func applyFilePolicy(_ configuration: DaemonConfiguration, store: Store, logger: Logger) throws {
        let consent = try SyncSettings.consent(store)
        for stream in SyncStream.allCases where consent.allows(stream) && configuration.privacy.ceiling(stream) == false {
            try SyncSettings.setConsent(store, stream, false)
            logger.notice("sync: \(DaemonConfiguration.Privacy.key(stream)) is false in the configuration: \(stream.rawValue) turned off")
        }
        if configuration.crash.enabled && !consent.sos {
            try SyncSettings.setConsent(store, .sos, true)
            logger.notice("sync: crash detection is on, so SOS sharing was turned on: an SOS that cannot leave the device is worse than none")
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
