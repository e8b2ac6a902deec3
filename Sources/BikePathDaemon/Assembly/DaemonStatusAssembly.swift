import BikePathCore
import BikePathSensors
import Foundation

extension DaemonStatus {
    /// What `status` answers: the pipeline's and sync's last reports, the live
    /// sensors' state, and every reason the daemon runs degraded.
    static func assemble(
        board: StatusBoard, sensors: LiveSources?, startedAt: SampleTime, storePath: String,
        version: String, problems: [String]
    ) -> DaemonStatus {
        let p = board.pipeline
        let s = board.sync
        let now = EdgeClock.monotonic()
        var degraded = sensors?.degradedReasons ?? []
        degraded += problems
        if let storeProblem = p.storeProblem { degraded.append(storeProblem) }
        if s.succeeded == false, let result = s.lastResult { degraded.append("network: sync \(result)") }
        let gnss: DaemonStatus.GNSS
        let imu: DaemonStatus.IMU
        if let sensors {
            let g = sensors.gnss.status
            gnss = DaemonStatus.GNSS(
                connected: g.connected, lastFixLat: g.lastFix?.latitude ?? p.lastFixLat,
                lastFixLon: g.lastFix?.longitude ?? p.lastFixLon, lastFixAgeS: g.fixAge(now: now) ?? p.lastFixAt.map { now.seconds - $0 },
                mode: "\(g.fixMode)")
            let i = sensors.imu.status
            imu = DaemonStatus.IMU(connected: i.connected, rateHz: i.measuredRateHz)
        } else {
            gnss = DaemonStatus.GNSS(connected: false, lastFixLat: p.lastFixLat, lastFixLon: p.lastFixLon, mode: "replay")
            imu = DaemonStatus.IMU(connected: false)
        }
        let directory = (storePath as NSString).deletingLastPathComponent
        return DaemonStatus(
            version: version, pid: getpid(), uptimeS: now - startedAt, degraded: degraded,
            trip: .init(state: p.tripState, id: p.tripID, distanceM: p.tripDistanceM, durationS: p.tripDurationS),
            gnss: gnss, imu: imu,
            store: .init(path: storePath, queueLength: p.queueLength, freeBytes: freeBytes(at: directory)),
            sync: .init(enabled: s.enabled, lastAttemptAt: s.lastAttemptAt, lastResult: s.lastResult, succeeded: s.succeeded))
    }
}
