import BikePathCore

// The seam for `bikepathd run`. This module holds the daemon's plumbing
// (configuration, logging, sd_notify, watchdog, status socket); the parts live
// in other modules (BikePathSensors, the chain in BikePathCore, BikePathStore,
// BikePathSync). `run` wires them through these protocols so that each can be
// replaced by a fake in a test, and so that this module depends on none of them.
//
// The intended loop (one pipeline thread):
//
//     notifier.ready(status:) once sources are started and the store is open
//     loop {
//         let batch = sources.next(timeout: 1 s)   // empty on timeout: still a pass
//         let outputs = pipeline.process(batch)
//         sink.write(outputs); events → statusServer.publish
//         heartbeat.beat()                          // Watchdog pings only if this moves
//     }
//     SIGTERM: notifier.stopping(); sources.stop(); pipeline.finish(); sink.flush(); exit within 2 s
//     SIGHUP:  notifier.reloading(); ConfigurationLoader.load → apply or log the problems; notifier.ready()

/// A live or recorded input. `next` blocks at most `timeout` seconds and may
/// return an empty batch; records are in receive-time order.
public protocol SensorSource: AnyObject, Sendable {
    func start() throws
    func next(timeoutSeconds: Double) -> [SensorRecord]
    func stop()
    /// Why the source is degraded right now ("gpsd unreachable"), or nil when fine.
    var degradedReason: String? { get }
}

/// The pure chain as the daemon sees it: records in, outputs out, no I/O.
public protocol PipelineStep {
    associatedtype Outputs
    mutating func process(_ records: [SensorRecord]) -> Outputs
    /// End of input (shutdown): close what is open and return the last outputs.
    mutating func finish() -> Outputs
}

/// Where outputs go (the store). `flush` commits everything written so far;
/// it is called every `store.commit_interval_s` and on shutdown.
public protocol OutputSink<Outputs>: AnyObject {
    associatedtype Outputs
    func write(_ outputs: Outputs) throws
    func flush() throws
}

/// Fills `DaemonStatus` on request, from whatever the parts last reported.
public protocol StatusSource: Sendable {
    func currentStatus() -> DaemonStatus
}
