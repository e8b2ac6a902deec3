import BikePathCore
import BikePathDaemon
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// `BikePathBench soak` (bench/soak.sh): rides generated on the fly,
/// so a day of input costs no disk and no memory up front. Each hour is 50 min
/// riding north at 5.5 m/s and 10 min standing still (the trip ends), with 1 Hz
/// GNSS as RMC + GGA (UTC advancing through midnight) and a 100 Hz IMU with road
/// noise and a bump every 7 s. Deterministic.
final class SyntheticRideSource: SensorSource, @unchecked Sendable {
    let seconds: Int
    private var second = 0
    private var latitude = 51.5
    private var rng: UInt64 = 0x9E37_79B9_7F4A_7C15
    private let lock = NSLock()
    private(set) var finished = false
    private var stopped = false
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
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
    var degradedReason: String? { nil }

    func next(timeoutSeconds: Double) -> [SensorRecord] {
        lock.lock()
        defer { lock.unlock() }
        var out: [SensorRecord] = []
        if stopped { return out }
        let end = min(seconds, second + 10)
        while second < end {
            append(second: second, into: &out)
            second += 1
        }
        progress.update(Int64(second))
        if second >= seconds, !finished {
            finished = true
            progress.finish(Int64(second), summary: "synthetic ride of \(seconds) s generated")
        }
        return out
    }

    private func noise() -> Float {
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17
        return Float(Int64(bitPattern: rng >> 11) % 2001 - 1000) / 1000
    }

    private func append(second s: Int, into out: inout [SensorRecord]) {
        let riding = s % 3600 < 3000
        let speed = riding ? 5.5 : 0
        for i in 0..<Self.imuRate {
            let t = Double(s) + Double(i) / Double(Self.imuRate)
            let bump: Float = riding && i == 50 && s % 7 == 0 ? 12 : 0
            let shake: Float = riding ? 0.8 : 0.02
            out.append(
                .imu(
                    IMUSample(
                        time: SampleTime(seconds: t),
                        accel: Vector3(x: 0.3 * shake * noise(), y: 0.3 * shake * noise(), z: 9.81 + shake * noise() + bump),
                        gyro: Vector3(x: 0.02 * noise(), y: 0.02 * noise(), z: 0.02 * noise()))))
            if i == 5 {  // the epoch at s is received 50 ms later
                for sentence in Self.nmea(utcSecond: Self.utcBase + s, latitude: latitude, speed: speed) {
                    out.append(.nmea(SampleTime(seconds: t), sentence))
                }
            }
        }
        latitude += speed / 111_250
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
