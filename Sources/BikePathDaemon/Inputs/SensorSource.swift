import BikePathCore

/// A live or recorded input (`LiveSources`, `ReplaySource`, a generated ride).
/// `next` blocks at most `timeoutSeconds` and may return an empty batch;
/// records are in receive-time order. `PipelineDriver` is its one reader.
public protocol SensorSource: AnyObject, Sendable {
    func start() throws
    func next(timeoutSeconds: Double) -> [SensorRecord]
    /// No more reading; what is still held is returned by the following `next` calls.
    func stop()
    /// Why the source is degraded right now ("gpsd unreachable"), or nil when fine.
    var degradedReason: String? { get }
}
