import BikePathCore
import BikePathDaemon
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `BikePathBench soak` (bench/soak.sh): rides generated on the fly,
/// so a day of input costs no disk and no memory up front. Each hour is 50 min
/// riding north at 5.5 m/s and 10 min standing still (the trip ends), with 1 Hz
/// GNSS as RMC + GGA (UTC advancing through midnight) and a 100 Hz IMU with road
/// noise and a bump every 7 s. Deterministic.
final class SyntheticRideSource: SensorSource, Sendable {
    let seconds: Int
    /// Where the ride is; `next` and `stop` come from different threads.
    fileprivate struct Ride {
        var second = 0
        var latitude = 51.5
        var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
        var finished = false
        var stopped = false
    }
    private let ride = Mutex(Ride())
    var finished: Bool { ride.withLock { $0.finished } }
    private let progress: ProgressReporter
    static let imuRate = 100
    /// 2026-06-01T00:00:00Z
    static let utcBase = 1_780_272_000

    init(hours: Double) {
        seconds = Int(hours * 3600)
        progress = ProgressReporter(label: "synthetic ride", total: Int64(seconds), unit: "s")
    }

    func start() throws {}
    /// SIGTERM in the middle: generate nothing more (not `finished`: a trip stays open).
    func stop() { ride.withLock { $0.stopped = true } }
    var degradedReason: String? { nil }

    func next(timeoutSeconds: Double) -> [SensorRecord] {
        ride.withLock { ride in
            var out: [SensorRecord] = []
            if ride.stopped { return out }
            let end = min(seconds, ride.second + 10)
            while ride.second < end {
                ride.append(second: ride.second, into: &out)
                ride.second += 1
            }
            progress.update(Int64(ride.second))
            if ride.second >= seconds, !ride.finished {
                ride.finished = true
                progress.finish(Int64(ride.second), summary: "synthetic ride of \(seconds) s generated")
            }
            return out
        }
    }

    static func nmea(utcSecond: Int, latitude: Double, speed: Double) -> [String] {
        var time = time_t(utcSecond)
        var tm = tm()
        gmtime_r(&time, &tm)
        let degrees = Int(latitude), minutes = (latitude - Double(degrees)) * 60
        let lat = String(format: "%02d%08.5f", degrees, minutes)
        let hms = String(format: "%02d%02d%02d.00", tm.tm_hour, tm.tm_min, tm.tm_sec)
        let date = String(format: "%02d%02d%02d", tm.tm_mday, tm.tm_mon + 1, tm.tm_year % 100)
        let knots = String(format: "%.2f", speed / 0.514444)
        return [
            NMEAWriter.sentence(body: "GPRMC,\(hms),A,\(lat),N,00007.20000,W,\(knots),0.0,\(date),,,A"),
            NMEAWriter.sentence(body: "GPGGA,\(hms),\(lat),N,00007.20000,W,1,09,0.9,20.0,M,47.0,M,,"),
        ]
    }
}

extension SyntheticRideSource.Ride {
    mutating func noise() -> Float {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        return Float(Int64(bitPattern: rng >> 11) % 2001 - 1000) / 1000
    }

    mutating func append(second s: Int, into out: inout [SensorRecord]) {
        let riding = s % 3600 < 3000
        let speed = riding ? 5.5 : 0
        for i in 0..<SyntheticRideSource.imuRate {
            let t = Double(s) + Double(i) / Double(SyntheticRideSource.imuRate)
            let bump: Float = riding && i == 50 && s % 7 == 0 ? 12 : 0
            let shake: Float = riding ? 0.8 : 0.02
            out.append(
                .imu(
                    IMUSample(
                        time: SampleTime(seconds: t),
                        accel: Vector3(x: 0.3 * shake * noise(), y: 0.3 * shake * noise(), z: 9.81 + shake * noise() + bump),
                        gyro: Vector3(x: 0.02 * noise(), y: 0.02 * noise(), z: 0.02 * noise()))))
            if i == 5 {  // the epoch at s is received 50 ms later
                for sentence in SyntheticRideSource.nmea(utcSecond: SyntheticRideSource.utcBase + s, latitude: latitude, speed: speed) {
                    out.append(.nmea(SampleTime(seconds: t), sentence))
                }
            }
        }
        latitude += speed / 111_250
    }
}
