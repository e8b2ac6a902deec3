import BikePathCore
import Foundation

/// Full-chain throughput on a synthetic ride: IMU at 200 Hz and 1 kHz, GNSS at 10 Hz,
/// fed in one-second batches as a live source would. Records are generated before the
/// clock starts so only the chain is timed.
enum ChainBenchmark {
    static func ride(hours: Double, imuRate: Double) -> [[SensorRecord]] {
        let seconds = Int(hours * 3600)
        let perSecond = Int(imuRate)
        var batches: [[SensorRecord]] = []
        batches.reserveCapacity(seconds)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func noise() -> Float {   // xorshift: deterministic, cheap road vibration
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(Int64(bitPattern: state >> 11) % 2001 - 1000) / 1000
        }
        var marked = false
        for s in 0..<seconds {
            var batch: [SensorRecord] = []
            batch.reserveCapacity(perSecond + 11)
            if !marked { batch.append(.marker(SampleTime(seconds: 0), .tripStart)); marked = true }
            for i in 0..<perSecond {
                let t = Double(s) + Double(i) / imuRate
                let z = 9.81 + 0.8 * noise() + (i == perSecond / 2 && s % 7 == 0 ? 12 : 0)
                batch.append(.imu(IMUSample(time: SampleTime(seconds: t),
                                            accel: Vector3(x: 0.3 * noise(), y: 0.3 * noise(), z: z),
                                            gyro: Vector3(x: 0.02 * noise(), y: 0.02 * noise(), z: 0.02 * noise()))))
            }
            batches.append(batch)
        }
        return batches
    }

    static func fixes(hours: Double) -> [GNSSFix] {
        let count = Int(hours * 3600 * 10)
        return (0..<count).map { i in
            let t = Double(i) / 10
            return GNSSFix(receivedAt: SampleTime(seconds: t + 0.05),
                           time: UTCTime(nanosecondsSince1970: 1_700_000_000_000_000_000 + Int64(i) * 100_000_000),
                           mode: .threeD, latitude: 51.5 + t * 5.0e-5, longitude: -0.12, altitudeMSL: 20,
                           speed: 5.5, hdop: 0.9)
        }
    }

    static func run(hours: Double, rates: [Double]) {
        print("filter chain benchmark: \(hours) h synthetic ride, GNSS 10 Hz, one core")
        for rate in rates.isEmpty ? [200.0, 1000.0] : rates {
            let batches = ride(hours: hours, imuRate: rate)
            let gnss = fixes(hours: hours)
            let samples = batches.reduce(0) { $0 + $1.count } - 1
            var configuration = PipelineConfiguration()
            configuration.crashDetectionEnabled = true     // every stage on: the worst case
            var outputs = 0
            var obstacles = 0, segments = 0, trips = 0
            var times: [Double] = []
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
                let elapsed = clock.measure {
                    var f = 0
                    for (s, batch) in batches.enumerated() {
                        // The fixes of this second, then its IMU batch (fixes lag the IMU by < 1 s).
                        while f < gnss.count && gnss[f].receivedAt.seconds < Double(s) {
                            outputs += count(pipeline.process(fix: gnss[f])); f += 1
                        }
                        outputs += count(pipeline.process(batch))
                    }
                    outputs += count(pipeline.finish())
                }
                times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18)
            }
            times.sort()
            let median = times[times.count / 2], best = times[0]
            print(String(format: "  IMU %4.0f Hz: %9d samples: median %.3f s = %.1f M samples/s, best %.3f s = %.1f M samples/s (%d outputs)",
                         rate, samples, median, Double(samples) / median / 1e6, best, Double(samples) / best / 1e6, outputs))
            print("    trips \(trips), obstacles \(obstacles), road-quality segments \(segments)")
        }
    }
}
