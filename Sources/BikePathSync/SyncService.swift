import ServiceLifecycle
import UnixSignals

/// The one sync loop, for `bikepathd run` and `bikepathd sync` alike: the
/// engine's `run` (a pass at once, then after `idlePollSeconds` or with backoff,
/// earlier when woken by `workAvailable`), SIGUSR1 as the network hook (a
/// NetworkManager or ifupdown dispatcher sends it: forget the backoff, try now,
/// docs/sync.md), cancelled on graceful shutdown (the outbox keeps what was not
/// sent), then the HTTP client shut down. An engine stopped by the hub (401,
/// wrong URL) ends the service by itself.
public struct SyncService: Service, CustomStringConvertible {
    public let engine: SyncEngine
    private let onPass: @Sendable (PassResult, Double) -> Void

    /// `onPass` hears each pass's result and the seconds until the next one.
    public init(engine: SyncEngine, onPass: @escaping @Sendable (PassResult, _ waitSeconds: Double) -> Void = { _, _ in }) {
        self.engine = engine
        self.onPass = onPass
    }

    public var description: String { "sync" }

    /// Runs the sync loop until graceful shutdown or until the hub stops the engine, then shuts
    /// the HTTP client down.
    public func run() async {
        let (engine, onPass) = (engine, onPass)
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    for await _ in await UnixSignalsSequence(trapping: .sigusr1) { engine.networkChanged() }
                }
                await engine.run(onPass: onPass)
                group.cancelAll()
            }
        }
        await engine.client.shutdown()
    }
}
