import BikePathCore
import Foundation
import Logging

/// Where `run` takes its records from.
public enum DaemonInputKind: Sendable {
    /// gpsd and the IMU, as configured.
    case live
    /// A recording, as fast as possible, or paced at `speed` × real time.
    case recording(path: String, speed: Double?)
    /// Any other source (the soak benchmark's generated ride): `finished` says
    /// when it is used up.
    case generated(any SensorSource, finished: @Sendable () -> Bool)
}

/// An input made ready: its source, the live sensors if it is live (for status
/// and SIGHUP), when a recording is used up, and why it stopped early if it did.
struct DaemonInput: Sendable {
    var source: any SensorSource
    var live: LiveSources?
    var finished: @Sendable () -> Bool
    var failure: @Sendable () -> ReplayFailure?

    /// - Throws: what `ReplaySource` throws for a recording that cannot be read.
    static func make(_ kind: DaemonInputKind, configuration: DaemonConfiguration, logger: Logger) throws -> DaemonInput {
        switch kind {
        case .live:
            let l = LiveSources(gnss: configuration.gpsdConfiguration, imu: configuration.iioConfiguration, logger: logger)
            return DaemonInput(source: l, live: l, finished: { false }, failure: { nil })
        case .recording(let path, let speed):
            let r = try ReplaySource(path: path, repeats: 1, speed: speed)
            return DaemonInput(source: r, finished: { r.finished }, failure: { r.failure })
        case .generated(let source, let finished):
            return DaemonInput(source: source, finished: finished, failure: { nil })
        }
    }
}
