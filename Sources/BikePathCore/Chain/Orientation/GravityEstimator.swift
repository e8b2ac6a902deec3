/// Tracks the gravity direction in the sensor frame, whatever the mount angle, and gives
/// the world-frame vertical acceleration (gravity removed, up positive).
///
/// With a gyro: a complementary filter. Gravity is a world-fixed vector, so in the sensor
/// frame it turns as dg/dt = −ω × g; integrating the gyro follows fast rotations, and a
/// slow pull (time constant τ) towards the measured acceleration removes gyro drift.
/// Without a gyro: a low-pass of the acceleration (τ shorter, since nothing else tracks
/// rotation). IIO reports specific force, so at rest the accelerometer reads +g "up".
struct GravityEstimator: Sendable {
    var gx: Float = 0, gy: Float = 0, gz: Float = 0
    var primed = false
    let tauWithGyro: Float
    let tauWithoutGyro: Float
    /// dt/(τ+dt) for the last sample spacing, per mode (a division saved per sample).
    var lastDt: Float = -1
    var kGyro: Float = 0
    var kNoGyro: Float = 0

    init(tauWithGyro: Double, tauWithoutGyro: Double) {
        self.tauWithGyro = Float(tauWithGyro)
        self.tauWithoutGyro = Float(tauWithoutGyro)
    }

    /// Updates the estimate and returns the vertical acceleration, m/s².
    @inline(__always)
    mutating func step(accel a: Vector3, gyro: Vector3?, dt: Float) -> Float {
        if dt != lastDt {
            lastDt = dt
            kGyro = dt / (tauWithGyro + dt)
            kNoGyro = dt / (tauWithoutGyro + dt)
        }
        if !primed {
            gx = a.x; gy = a.y; gz = a.z; primed = true
        } else if let w = gyro {
            // g ← g − (ω × g)·dt
            let cx = w.y * gz - w.z * gy
            let cy = w.z * gx - w.x * gz
            let cz = w.x * gy - w.y * gx
            gx -= cx * dt; gy -= cy * dt; gz -= cz * dt
            let k = kGyro
            gx += k * (a.x - gx); gy += k * (a.y - gy); gz += k * (a.z - gz)
        } else {
            let k = kNoGyro
            gx += k * (a.x - gx); gy += k * (a.y - gy); gz += k * (a.z - gz)
        }
        let norm2 = gx * gx + gy * gy + gz * gz
        guard norm2 > 1e-6 else { return 0 }
        let norm = norm2.squareRoot()
        return (a.x * gx + a.y * gy + a.z * gz) / norm - norm
    }

    /// Unit vector of gravity ("up" as the accelerometer sees it) in the sensor frame.
    var up: (Float, Float, Float) {
        let n = (gx * gx + gy * gy + gz * gz).squareRoot()
        guard n > 1e-3 else { return (0, 0, 1) }
        return (gx / n, gy / n, gz / n)
    }
}
