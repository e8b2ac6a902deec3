import Foundation
import Testing
@testable import BikePathCore

struct GeometryTests {
    @Test func ellipsoidalStepsMatchKnownGeodesicLengths() {
        // One arc-minute of latitude and of longitude on WGS84 (reference values from the
        // ellipsoid's radii of curvature: 1852 m is the nautical mile at ~45°).
        let m45 = Geodesic.distance(Coordinate(latitude: 44.99166667, longitude: 7), Coordinate(latitude: 45.00833333, longitude: 7))
        #expect(abs(m45 - 1852.25) < 0.5)
        // 100 m east at the equator: a·Δλ.
        let dLon = 100 / 6_378_137.0 * 180 / Double.pi
        #expect(abs(Geodesic.distance(Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: dLon)) - 100) < 1e-6)
        // Summing 1 m steps along a meridian equals the long step (metre resolution).
        var sum = 0.0
        var p = Coordinate(latitude: 51.5, longitude: -0.1)
        let step = 1 / 111_250.0
        for _ in 0..<1000 {
            let q = Coordinate(latitude: p.latitude + step, longitude: p.longitude)
            sum += Geodesic.distance(p, q); p = q
        }
        #expect(abs(sum - Geodesic.distance(Coordinate(latitude: 51.5, longitude: -0.1), p)) < 1e-6)
    }

    @Test func douglasPeuckerKeepsCornersAndDropsNoise() {
        let plane = LocalPlane(origin: Coordinate(latitude: 45, longitude: 7))
        // An L: 200 m north, then 200 m east, with ±1 m wiggle.
        var pts: [Coordinate] = []
        for i in 0...200 { pts.append(plane.unproject(east: i % 2 == 0 ? 1 : -1, north: Double(i))) }
        for i in 1...200 { pts.append(plane.unproject(east: Double(i), north: 200 + (i % 2 == 0 ? 1 : -1))) }
        let simplified = DouglasPeucker.simplify(pts, tolerance: 5)
        #expect(simplified.count >= 3 && simplified.count <= 5)
        #expect(simplified.first == pts.first && simplified.last == pts.last)
        // The corner survives: some kept point is within 3 m of (0, 200).
        #expect(
            simplified.contains {
                let xy = plane.project($0); return abs(xy.east) < 3 && abs(xy.north - 200) < 3
            })
        // Every dropped point is within tolerance of the simplified polyline's vertices' segments.
        #expect(DouglasPeucker.simplify(pts, tolerance: 0.1).count == pts.count)
        #expect(DouglasPeucker.simplify(Array(pts.prefix(2)), tolerance: 5).count == 2)
    }
}

struct OrientationTests {
    /// A device mounted at an arbitrary angle bouncing vertically at 3 Hz, ±2 m/s².
    static func mounted(rollDegrees: Float, pitchDegrees: Float, gyro: Bool) -> [Float] {
        let r = rollDegrees * .pi / 180, p = pitchDegrees * .pi / 180
        // World up expressed in the sensor frame for that mount.
        let up = (x: -sin(p), y: sin(r) * cos(p), z: cos(r) * cos(p))
        var estimator = GravityEstimator(tauWithGyro: 2, tauWithoutGyro: 0.5)
        var out: [Float] = []
        for i in 0..<2000 {
            let t = Float(i) / 200
            let a = 9.81 + 2 * sin(2 * .pi * 3 * t)
            let v = estimator.step(
                accel: Vector3(x: a * up.x, y: a * up.y, z: a * up.z),
                gyro: gyro ? Vector3.zero : nil, dt: 1 / 200)
            out.append(v)
        }
        return out
    }

    @Test(arguments: [(0, 0), (30, 0), (0, 60), (75, -40), (170, 10)] as [(Float, Float)])
    func verticalAccelerationIsRecoveredWhateverTheMount(roll: Float, pitch: Float) {
        for gyro in [true, false] {
            let v = Self.mounted(rollDegrees: roll, pitchDegrees: pitch, gyro: gyro).suffix(600)
            // After settling: amplitude ≈ 2 m/s², mean ≈ 0 (gravity removed).
            let peak = v.map(abs).max() ?? 0
            let mean = v.reduce(0, +) / Float(v.count)
            #expect(abs(peak - 2) < 0.35, "roll \(roll) pitch \(pitch) gyro \(gyro): peak \(peak)")
            #expect(abs(mean) < 0.2)
        }
    }

    @Test func gyroTracksARotationTheLowPassWouldLag() {
        // Turn the device 90° about y in 0.5 s; with the gyro, "up" follows at once.
        var withGyro = GravityEstimator(tauWithGyro: 2, tauWithoutGyro: 0.5)
        var without = GravityEstimator(tauWithGyro: 2, tauWithoutGyro: 0.5)
        let w = Float.pi
        for i in 0..<400 {
            _ = withGyro.step(accel: Vector3(x: 0, y: 0, z: 9.81), gyro: .zero, dt: 0.005);
            _ = without.step(accel: Vector3(x: 0, y: 0, z: 9.81), gyro: nil, dt: 0.005); _ = i
        }
        for i in 0..<100 {
            let theta = w * Float(i + 1) * 0.005
            let a = Vector3(x: -9.81 * sin(theta), y: 0, z: 9.81 * cos(theta))
            _ = withGyro.step(accel: a, gyro: Vector3(x: 0, y: w, z: 0), dt: 0.005)
            _ = without.step(accel: a, gyro: nil, dt: 0.005)
        }
        #expect(withGyro.up.0 < -0.97)
        #expect(without.up.0 > -0.9)
    }
}
