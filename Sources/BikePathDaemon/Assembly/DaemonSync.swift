import BikePathCore
import BikePathStore
import BikePathSync
import Foundation
import Logging

/// Sync in `bikepathd run`, when a hub is configured: the shared `SyncService`
/// (the same loop, wake-up and SIGUSR1 network hook as `bikepathd sync`), polling
/// every `sync.interval_s` and backing off at most that long, with each pass
/// reported to `status` and `tail`. A missing network is a failed pass, never an exit.
enum DaemonSync {
    /// The service, or why sync is off (a degraded mode, not an exit).
    static func make(
        _ configuration: DaemonConfiguration, store: Store, board: StatusBoard, logger: Logger,
        publish: @escaping @Sendable (DaemonEvent) -> Void
    ) async -> (SyncService?, String?) {
        // The file's ceilings are recorded with or without a hub: a hub set later (or
        // `bikepathd sync`) must find them. Without a hub nothing leaves, so a failure
        // here matters only with one, where it keeps sync off.
        let policy: Result<Void, any Error>
        do { policy = .success(try await applyFilePolicy(configuration, store: store, logger: logger)) } catch { policy = .failure(error) }
        guard !configuration.sync.hubURL.isEmpty else { return (nil, nil) }
        do {
            try policy.get()
            let client = try HubClient(endpoint: try configuration.sync.endpoint())
            var options = SyncOptions()
            options.idlePollSeconds = configuration.sync.intervalS
            options.backoff.capSeconds = min(options.backoff.capSeconds, configuration.sync.intervalS)
            board.updateSync { $0.enabled = true }
            let engine = SyncEngine(store: store, client: client, options: options)
            return (
                SyncService(engine: engine) { result, wait in
                    report(result, wait: wait, board: board, logger: logger, publish: publish)
                }, nil
            )
        } catch {
            let problem = "sync off: \(error)"
            logger.error("\(problem)")
            return (nil, problem)
        }
    }

    /// One pass's result to the log, the status board and `tail`.
    static func report(
        _ result: PassResult, wait: Double, board: StatusBoard, logger: Logger,
        publish: @Sendable (DaemonEvent) -> Void
    ) {
        let text = result.description
        switch result {
        case .drained(let sent, let quarantined):
            if sent > 0 || quarantined > 0 { logger.info("sync: \(text)") }
        case .failed:
            logger.warning("sync: \(text); next try in \(Int(wait.rounded())) s")
        case .unauthorized:
            logger.error("sync: \(text); the hub refused the token, sync stays off until restart")
        case .misconfigured:
            logger.error("sync: \(text); sync stays off until the hub URL is fixed and the daemon restarted")
        }
        let succeeded: Bool = if case .drained = result { true } else { false }
        board.updateSync { s in
            s.lastAttemptAt = isoNow()
            s.lastResult = text
            s.succeeded = succeeded
        }
        if case .drained(0, _) = result { return }
        publish(DaemonEvent(kind: "sync", message: text, fields: ["ok": "\(succeeded)"]))
    }

    /// The rider's consent in the store is the rider's alone: `run` never writes it.
    /// The file only forbids: a `privacy.share_*` key written as false is recorded
    /// apart (`Store.setFileForbids`) and keeps that stream on the device while it
    /// stays in the file (and `sync consent` refuses to turn it on); an absent key
    /// leaves the rider's choice in force. Nothing here turns a stream on: crash
    /// detection with SOS sharing off is logged (and shown by `status` and
    /// `diagnose`), never "fixed" behind the rider's back. Privacy zones from the
    /// file are added to the store's, and the stricter trim wins.
    static func applyFilePolicy(_ configuration: DaemonConfiguration, store: Store, logger: Logger) async throws {
        try store.setFileForbids(Set(SyncStream.allCases.filter { configuration.privacy.ceiling($0) == false }))
        for stream in ConsentPolicy.corrections(of: try await SyncSettings.consent(store), file: configuration) {
            logger.notice(
                "sync: \(DaemonConfiguration.Privacy.key(stream)) is false in the configuration: \(stream.rawValue) stays on this device (the rider's consent is kept)"
            )
        }
        if let problem = ConsentPolicy.sosStaysOnDevice(
            consent: try await store.effectiveConsent(), crashDetection: configuration.crash.enabled)
        {
            logger.warning("\(problem)")
        }
        var privacy = try await SyncSettings.privacy(store)
        for zone in configuration.privacy.zones {
            privacy.zones.removeAll { $0.name == zone.name }
            privacy.zones.append(
                PrivacyZone(
                    name: zone.name, center: Coordinate(latitude: zone.lat, longitude: zone.lon),
                    radiusMeters: zone.radiusM))
        }
        privacy.trim.seconds = max(privacy.trim.seconds, configuration.privacy.trimS)
        privacy.trim.meters = max(privacy.trim.meters, configuration.privacy.trimM)
        try SyncSettings.setPrivacy(store, privacy)
    }
}
