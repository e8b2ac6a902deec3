import BikePathCore
import BikePathFixtures
import Foundation

/// Full-chain throughput on a synthetic ride: IMU at 200 Hz and 1 kHz, GNSS at 10 Hz as
/// NMEA sentences (RMC + GGA per epoch, so decoding is timed too), fed in one-second
/// batches as a live source would. Records are generated before the clock starts so
/// only the chain is timed.
enum ChainBenchmark {
    static func ride(hours: Double, imuRate: Double) -> [[SensorRecord]] {
        let seconds = Int(hours * 3600)
        let perSecond = Int(imuRate)
        var batches: [[SensorRecord]] = []
        batches.reserveCapacity(seconds)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Float {  // xorshift: deterministic, cheap road vibration
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000
        }
        var marked = false
        for s in 0..<seconds {
            var batch: [SensorRecord] = []
            batch.reserveCapacity(perSecond + 11)
            if !marked { batch.append(.marker(SampleTime(seconds: 0), .tripStart)); marked = true }
            for k in 0..<10 {
                // 10 Hz GNSS: RMC then GGA, received 50 ms after the epoch.
                let t = Double(s) + Double(k) / 10
                for sentence in nmea(epoch: t) {
                    batch.append(.nmea(SampleTime(seconds: t + 0.05), sentence))
                }
            }
            for i in 0..<perSecond {
                let t = Double(s) + Double(i) / imuRate
                let z = 9.81 + 0.8 * noise() + (s % 7 == 0 ? pothole(at: Double(i) / imuRate - 0.5) : 0)
                batch.append(
                    .imu(
                        IMUSample(
                            time: SampleTime(seconds: t),
                            accel: Vector3(x: 0.3 * noise(), y: 0.3 * noise(), z: z),
                            gyro: Vector3(x: 0.02 * noise(), y: 0.02 * noise(), z: 0.02 * noise()))))
            }
            batch.sort { $0.time < $1.time }
            batches.append(batch)
        }
        return batches
    }

    /// A pothole crossing every 7 s (front and rear wheel, `WheelImpact` at the ride's
    /// 5.5 m/s, 16 m/s² at the bar), the same in time at every rate, so the 200 Hz and 1 kHz
    /// runs exercise the trigger and the judge alike and both report it.
    static let crossing = WheelImpact(
        kind: .pothole, peak: 16, speed: 5.5, wheelbase: 1.05, rearRatio: 0.6,
        contactLength: 0.1, obstacleLength: 0.4, drop: 3.5, ringHz: 18,
        ringDamping: 0.12, ringRatio: 0.4)

    static func pothole(at t: Double) -> Float {
        crossing.span.contains(t) ? Float(crossing.acceleration(at: t)) : 0
    }

    /// RMC and GGA for a rider going north at 5.5 m/s from 51.5° N, 0.12° W.
    static func nmea(epoch t: Double) -> [String] {
        let latitude = 51.5 + t * 5.5 / 111_250
        let degrees = Int(latitude), minutes = (latitude - Double(degrees)) * 60
        let lat = String(format: "%02d%08.5f", degrees, minutes)
        let lon = "00007.20000"
        let secondOfDay = Int(t) % 86_400
        let time = String(
            format: "%02d%02d%05.2f", secondOfDay / 3600, secondOfDay / 60 % 60,
            Double(secondOfDay % 60) + t.truncatingRemainder(dividingBy: 1))
        let rmc = "GPRMC,\(time),A,\(lat),N,\(lon),W,10.69,0.0,140723,,,A"
        let gga = "GPGGA,\(time),\(lat),N,\(lon),W,1,09,0.9,20.0,M,47.0,M,,"
        return [rmc, gga].map { body in
            let sum = body.utf8.reduce(UInt8(0), ^)
            return "$" + body + String(format: "*%02X", sum)
        }
    }

    static func run(hours: Double, rates: [Double]) {
        print("filter chain benchmark: \(hours) h synthetic ride, GNSS 10 Hz NMEA (RMC+GGA), one core")
        for rate in rates.isEmpty ? [200.0, 1000.0] : rates {
            let batches = ride(hours: hours, imuRate: rate)
            let samples = Int(hours * 3600 * rate)
            var configuration = PipelineConfiguration()
            configuration.crashDetectionEnabled = true  // every stage on: the worst case
            var outputs = 0
            var obstacles = 0, segments = 0, trips = 0
            var times: [Double] = []
            var cpuTimes: [Double] = []
            // The machine is shared: repeat and report the median and the best run.
            for _ in 0..<5 {
                var pipeline = Pipeline(configuration: configuration)
                outputs = 0; obstacles = 0; segments = 0; trips = 0
                func count(_ o: [ChainOutput]) -> Int {
                    for x in o {
                        switch x {
                        case .obstacle: obstacles += 1
                        case .roadQuality: segments += 1
                        case .tripEnded: trips += 1
                        default: break
                        }
                    }
                    return o.count
                }
                let clock = ContinuousClock()
                let cpuStart = threadCPUSeconds()
                let elapsed = clock.measure {
                    for batch in batches { outputs += count(pipeline.process(batch)) }
                    outputs += count(pipeline.finish())
                }
                cpuTimes.append(threadCPUSeconds() - cpuStart)
                times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
            times.sort(); cpuTimes.sort()
            let median = times[times.count / 2], best = times[0], cpu = cpuTimes[cpuTimes.count / 2]
            print(
                String(
                    format: "  IMU %4.0f Hz: %9d samples: wall median %.3f s = %.1f M samples/s, best %.3f s = %.1f M samples/s; "
                        + "thread CPU median %.3f s = %.1f M samples/s (%d outputs)",
                    rate, samples, median, Double(samples) / median / 1e6, best, Double(samples) / best / 1e6,
                    cpu, Double(samples) / cpu / 1e6, outputs))
            print("    trips \(trips), obstacles \(obstacles), road-quality segments \(segments)")
        }
    }
}

/// CPU time of the calling thread: on a shared machine it leaves out the time the
/// benchmark spent descheduled, which wall-clock time cannot.
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}
