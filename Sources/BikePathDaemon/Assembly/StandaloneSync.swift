import BikePathStore
import BikePathSync
import Foundation
import Logging
import ServiceLifecycle

/// `bikepathd sync run`: the daemon's sync loop (`SyncService`: wake-up, backoff,
/// SIGUSR1 as the network-change hook) without the daemon, or one pass of it.
public struct StandaloneSync: Sendable {
    public let engine: SyncEngine
    public let client: HubClient

    /// - Throws: `SyncOptionsError` when `batchSize` is outside `SyncOptions.batchSizes`;
    ///   `HubEndpoint.Problem` when the URL is not https (or http to loopback), or the TLS
    ///   configuration (CA file) cannot be used.
    public init(store: Store, endpoint: HubEndpoint, batchSize: Int) throws {
        var options = SyncOptions()
        try options.setBatchSize(batchSize)
        client = try HubClient(endpoint: endpoint)
        engine = SyncEngine(store: store, client: client, options: options)
    }

    /// One pass over the outbox, what it cost on the wire and how long it took.
    public func once() async -> (result: PassResult, wire: WireCounters, seconds: Double) {
        let started = DispatchTime.now().uptimeNanoseconds
        let result = await engine.syncOnce()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        await client.shutdown()
        return (result, client.wire, seconds)
    }

    /// Syncs until SIGTERM/SIGINT or until the hub refuses the token or the URL
    /// (that result is returned; it was reported by `report` already).
    public func untilStopped(logger: Logger, report: @escaping @Sendable (PassResult, _ waitSeconds: Double) -> Void) async throws
        -> PassResult?
    {
        // SIGUSR1 is trapped by SyncService while it runs; before and after it must not end the process.
        signal(SIGUSR1, SIG_IGN)
        let service = SyncService(engine: engine, onPass: report)
        try await ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: service)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        ).run()
        let stopped = await engine.stoppedResult
        await client.shutdown()
        return stopped
    }
}

extension PassResult {
    /// `sync run`'s exit status for a result (docs/cli.md): 0 drained, 3 the hub
    /// failed, or nothing it tried got through (every record it sent was quarantined),
    /// 4 the token was refused, 5 the hub URL is wrong.
    public var exitStatus: Int32 {
        switch self {
        case .drained(sent: 0, let quarantined) where quarantined > 0: 3
        case .drained: 0
        case .failed: 3
        case .unauthorized: 4
        case .misconfigured: 5
        }
    }
}
