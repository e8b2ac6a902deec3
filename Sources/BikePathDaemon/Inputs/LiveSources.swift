import BikePathCore
import BikePathSensors
import Foundation
import Logging
import Synchronization

/// gpsd (raw NMEA) and the IMU (IIO batches), merged into receive-time order.
/// Either may be missing: the source then reports why (`degradedReasons`) and
/// keeps trying in the background; it never fails.
public final class LiveSources: SensorSource {
    let queue: RecordQueue
    private let parts: Mutex<(gnss: GPSDSource, imu: IIOSource)>
    private let logger: Logger
    private let startedAt = EdgeClock.monotonic()

    /// Creates the sources; nothing is read until `start()`. Records are held for one IMU
    /// buffer period plus 0.3 s to merge them in order.
    public init(gnss: GPSDConfiguration, imu: IIOConfiguration, logger: Logger) {
        self.logger = logger
        let bufferPeriod = Double(imu.bufferSamples(rate: imu.samplingFrequency)) / max(imu.samplingFrequency, 1)
        queue = RecordQueue(holdbackSeconds: bufferPeriod + 0.3, clock: { EdgeClock.monotonic() })
        parts = Mutex((GPSDSource(configuration: gnss, logger: logger), IIOSource(configuration: imu, logger: logger)))
    }

    public var gnss: GPSDSource { parts.withLock { $0.gnss } }
    public var imu: IIOSource { parts.withLock { $0.imu } }

    /// Starts both reader threads; a missing sensor is retried in the background, so this never
    /// throws.
    public func start() throws {
        let (gnss, imu) = parts.withLock { ($0.gnss, $0.imu) }
        start(gnss: gnss)
        start(imu: imu)
    }

    private func start(gnss: GPSDSource) {
        let queue = queue
        gnss.start { event in
            if case .record(let record) = event { queue.push([record]) }
            return true
        }
    }

    private func start(imu: IIOSource) {
        let queue = queue
        imu.start { batch in
            queue.push(batch)
            return true
        }
    }

    /// Records due by now in receive-time order; waits up to `timeoutSeconds` for some.
    public func next(timeoutSeconds: Double) -> [SensorRecord] { queue.next(timeoutSeconds: timeoutSeconds) }

    /// Stops both readers (each waits for its thread) and releases what is held.
    public func stop() {
        let (gnss, imu) = parts.withLock { ($0.gnss, $0.imu) }
        gnss.requestStop()
        imu.requestStop()
        // Both readers end at once; SIGTERM must end the process within 2 s.
        let deadline = ProcessInfo.processInfo.systemUptime + 1.5
        _ = gnss.waitForStop(timeout: 1.5)
        _ = imu.waitForStop(timeout: max(0, deadline - ProcessInfo.processInfo.systemUptime))
        queue.close()
    }

    /// SIGHUP with new sensor settings: a new reader replaces the old one.
    func reconfigure(gnss gnssConfiguration: GPSDConfiguration, imu imuConfiguration: IIOConfiguration) {
        let (gnss, imu) = parts.withLock { ($0.gnss, $0.imu) }
        if gnss.configuration != gnssConfiguration {
            gnss.stop()
            let fresh = GPSDSource(configuration: gnssConfiguration, logger: logger)
            parts.withLock { $0.gnss = fresh }
            start(gnss: fresh)
        }
        if imu.configuration != imuConfiguration {
            imu.stop()
            let fresh = IIOSource(configuration: imuConfiguration, logger: logger)
            parts.withLock { $0.imu = fresh }
            start(imu: fresh)
        }
    }

    /// Why the daemon runs degraded because of its sensors; a few seconds of
    /// grace at start so that connecting is not reported as missing.
    public var degradedReasons: [String] {
        guard EdgeClock.monotonic() - startedAt > 3 else { return [] }
        var reasons: [String] = []
        let g = gnss.status
        if !g.connected {
            reasons.append("gpsd unreachable at \(g.host):\(g.port)" + (g.lastError.map { " (\($0))" } ?? ""))
        }
        let i = imu.status
        if !i.connected {
            reasons.append("IMU missing at \(i.uri)" + (i.lastError.map { " (\($0))" } ?? ""))
        }
        return reasons
    }

    public var degradedReason: String? { degradedReasons.isEmpty ? nil : degradedReasons.joined(separator: "; ") }
}
