import BikePathCore
import Foundation

/// Injects modelled wheel impacts (`WheelImpact`) into a real recording's IMU at known
/// times, to measure the detector's recall on a real bike's vibration (bench/obstacles.sh).
public enum ImpactInjection {
    /// One impact placed into the recording: when, and which.
    public struct Placed: Sendable, Equatable {
        /// Sample time of the front wheel's hit, s.
        public var time: Double
        public var impact: WheelImpact
    }

    /// Receiver speed over time from the recording's NMEA, (s, m/s), in time order.
    public static func speeds(_ records: [SensorRecord]) -> [(time: Double, speed: Double)] {
        var decoder = NMEADecoder()
        var out: [(time: Double, speed: Double)] = []
        for case .nmea(let t, let sentence) in records {
            for fix in decoder.decode(sentence: sentence, receivedAt: t) {
                if let v = fix.speed, fix.mode >= .twoD { out.append((fix.receivedAt.seconds, v)) }
            }
        }
        return out
    }

    /// `count` crossings at riding moments (speed ≥ `minimumSpeed`), at least `spacing`
    /// seconds from each other and from every time in `avoiding` (the plain ride's own
    /// candidates, so a found injection is never a pre-existing candidate).
    public static func plan(
        records: [SensorRecord], count: Int, seed: UInt64, avoiding: [Double] = [],
        minimumSpeed: Double = 2.5, spacing: Double = 3
    ) -> [Placed] {
        let track = speeds(records)
        guard let first = track.first?.time, let last = track.last?.time else { return [] }
        var rng = SplitMix64(state: seed)
        var placed: [Placed] = []
        var attempts = 0
        while placed.count < count && attempts < 10_000 {
            attempts += 1
            let t = Double.random(in: first...last, using: &rng)
            guard let v = speed(at: t, in: track), v >= minimumSpeed,
                placed.allSatisfy({ abs($0.time - t) >= spacing }), avoiding.allSatisfy({ abs($0 - t) >= spacing })
            else { continue }
            placed.append(Placed(time: t, impact: .draw(speed: v, using: &rng)))
        }
        return placed.sorted { $0.time < $1.time }
    }

    static func speed(at t: Double, in track: [(time: Double, speed: Double)]) -> Double? {
        guard let i = track.firstIndex(where: { $0.time >= t }), i > 0 else { return nil }
        let a = track[i - 1], b = track[i]
        guard b.time - a.time < 2 else { return nil }  // no speed across a GNSS gap
        return a.speed + (t - a.time) / (b.time - a.time) * (b.speed - a.speed)
    }

    /// The records with each crossing added along "up" (the mean specific force over the
    /// second around it, which is gravity's reaction whatever the mount's orientation).
    public static func inject(_ placed: [Placed], into records: [SensorRecord]) -> [SensorRecord] {
        var out = records
        let imuIndexes = records.indices.filter { if case .imu = records[$0] { true } else { false } }
        func sample(_ i: Int) -> IMUSample { if case .imu(let s) = out[i] { s } else { fatalError("not IMU") } }
        for p in placed {
            let around = imuIndexes.filter { abs(sample($0).time.seconds - p.time) <= 0.5 }
            var up = Vector3(x: 0, y: 0, z: 0)
            for i in around { let a = sample(i).accel; up = Vector3(x: up.x + a.x, y: up.y + a.y, z: up.z + a.z) }
            let norm = (up.x * up.x + up.y * up.y + up.z * up.z).squareRoot()
            guard norm > 0 else { continue }
            let span = p.impact.span
            for i in imuIndexes {
                let s = sample(i)
                let dt = s.time.seconds - p.time
                guard span.contains(dt) else { continue }
                let a = Float(p.impact.acceleration(at: dt)) / norm
                out[i] = .imu(
                    IMUSample(
                        time: s.time,
                        accel: Vector3(
                            x: s.accel.x + a * up.x, y: s.accel.y + a * up.y,
                            z: s.accel.z + a * up.z), gyro: s.gyro))
            }
        }
        return out
    }
}
