@testable import BikePathCore

/// Deterministic synthetic rides for tests: GNSS along a straight line northwards with
/// a speed profile, and optionally IMU samples with road texture.
struct SyntheticRide {
    /// (duration s, speed m/s) pieces, in order.
    var profile: [(Double, Double)]
    var fixRate = 1.0
    var start = Coordinate(latitude: 45.0, longitude: 7.0)
    var altitude: (Double) -> Double = { _ in 200 }
    var seed: UInt64 = 1

    var duration: Double { profile.reduce(0) { $0 + $1.0 } }

    func speed(at t: Double) -> Double {
        var t0 = 0.0
        for (d, v) in profile { if t < t0 + d { return v }; t0 += d }
        return profile.last?.1 ?? 0
    }

    /// Fixes with ±1 m position noise (deterministic) and exact Doppler speed.
    func fixes() -> [GNSSFix] {
        var rng = seed
        func noise() -> Double {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Double(rng >> 40) / Double(1 << 24) * 2 - 1
        }
        let plane = LocalPlane(origin: start)
        var north = 0.0
        var out: [GNSSFix] = []
        let n = Int(duration * fixRate)
        for i in 0...n {
            let t = Double(i) / fixRate
            if i > 0 { north += speed(at: t - 0.5 / fixRate) / fixRate }
            let c = plane.unproject(east: noise(), north: north + noise())
            out.append(
                GNSSFix(
                    receivedAt: SampleTime(seconds: t + 0.1),
                    time: UTCTime(nanosecondsSince1970: 1_700_000_000_000_000_000 + Int64(t * 1e9)),
                    mode: .threeD, latitude: c.latitude, longitude: c.longitude,
                    altitudeMSL: altitude(t), speed: speed(at: t), hdop: 1.0))
        }
        return out
    }

    /// IMU at `rate` Hz: gravity on +z, road texture scaling with speed, plus `extra`
    /// (accel, gyro) overrides for scripted moments.
    func imu(
        rate: Double, texture: Float = 1.0,
        extra: (Double) -> (Vector3, Vector3)? = { _ in nil }
    ) -> [SensorRecord] {
        var rng = seed &+ 99
        func noise() -> Float {
            rng = rng &* 6364136223846793005 &+ 1442695040888963407
            return Float(rng >> 40) / Float(1 << 24) * 2 - 1
        }
        return (0..<Int(duration * rate)).map { i in
            let t = Double(i) / rate
            if let (a, g) = extra(t) {
                return .imu(IMUSample(time: SampleTime(seconds: t), accel: a, gyro: g))
            }
            let v = Float(speed(at: t))
            let amp = texture * min(v, 8) / 5
            return .imu(
                IMUSample(
                    time: SampleTime(seconds: t),
                    accel: Vector3(x: 0.3 * amp * noise(), y: 0.3 * amp * noise(), z: 9.81 + amp * noise()),
                    gyro: Vector3(x: 0.02 * noise(), y: 0.02 * noise(), z: 0.02 * noise())))
        }
    }
}
