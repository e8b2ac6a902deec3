import ServiceLifecycle

/// Sync (`SyncRunner`, when a hub is configured) as a service: cancelled on
/// graceful shutdown (the outbox keeps what was not sent), then the HTTP client
/// is shut down. A runner that stops by itself (the hub refused the token)
/// leaves the daemon running without sync.
struct SyncService: Service, CustomStringConvertible {
    let runner: SyncRunner

    var description: String { "sync" }

    func run() async {
        let runner = runner
        await cancelWhenGracefulShutdown { await runner.run() }
        await runner.client.shutdown()
    }
}
