import BikePathCore

/// The one loop every pipeline run goes through (`run`, `record`, the live and
/// soak benchmarks): read the next batch (waiting at most `batchTimeout`; an
/// empty batch is still a pass, so timers and the watchdog's heartbeat move),
/// hand it to `pass`; once asked to stop, or when a recording is used up, stop
/// the source and hand on what it still held. The caller then finishes its
/// chain: what to do with the chain's last outputs differs (a live trip stays open).
public struct PipelineDriver {
    public let source: any SensorSource
    /// 250 ms: SIGTERM is answered well within systemd's 2 s, and an idle loop
    /// wakes 4 times a second.
    public var batchTimeout = 0.25

    /// Creates a driver reading `source`.
    public init(source: any SensorSource) { self.source = source }

    /// - Parameters:
    ///   - shouldStop: checked before every read.
    ///   - inputFinished: true once a recording is used up (live: never).
    ///   - pass: one batch, possibly empty; its error ends the drive (rethrown,
    ///     after the source is stopped).
    public func drive(
        shouldStop: () -> Bool, inputFinished: () -> Bool = { false },
        pass: ([SensorRecord]) throws -> Void
    ) throws {
        do {
            while !shouldStop() {
                let records = source.next(timeoutSeconds: batchTimeout)
                try pass(records)
                if records.isEmpty, inputFinished() { break }
            }
        } catch {
            source.stop()
            throw error
        }
        source.stop()
        while case let rest = source.next(timeoutSeconds: 0), !rest.isEmpty {
            try pass(rest)
        }
    }
}
