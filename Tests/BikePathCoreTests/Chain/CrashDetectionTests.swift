import Foundation
import Testing
@testable import BikePathCore

/// Crash = impact while riding, then the bike on its side, then stillness; one SOS within
/// 5 s of sample time (TrackMe R18). Negatives: a hard pothole, a bike dropped while parked.
struct CrashDetectionTests {
    static let rate = 200.0

    /// Rides at 5 m/s until `impactAt`; then a 6 g hit, a 90° roll in 0.5 s and stillness.
    static func crash(impactAt: Double, speedBefore: Double = 5, fall: Bool = true, tail: Double = 20) -> [ChainInput] {
        let ride = SyntheticRide(profile: [(impactAt, speedBefore), (tail, 0)])
        let w = Float.pi  // rad/s about y: 90° in 0.5 s
        let imu = ride.imu(rate: rate, texture: speedBefore > 0 ? 1 : 0.05) { t in
            let dt = t - impactAt
            guard dt >= 0 else { return nil }
            if dt < 0.05 { return (Vector3(x: 55, y: 10, z: 30), Vector3(x: 0, y: 2, z: 0)) }
            guard fall else { return nil }
            if dt < 0.55 {
                // Gravity turns in the sensor frame as dg/dt = −ω × g: g = (−sin θ, 0, cos θ).
                let theta = w * Float(dt - 0.05)
                return (Vector3(x: -9.81 * sin(theta), y: 0, z: 9.81 * cos(theta)), Vector3(x: 0, y: w, z: 0))
            }
            return (Vector3(x: -9.81, y: 0.02, z: 0.01), Vector3(x: 0, y: 0, z: 0))
        }
        return merge(fixes: ride.fixes(), records: imu)
    }

    static var enabled: PipelineConfiguration {
        var c = PipelineConfiguration()
        c.crashDetectionEnabled = true
        return c
    }

    @Test func aCrashRaisesOneSOSWithinFiveSeconds() throws {
        let out = replay(Self.crash(impactAt: 60), configuration: Self.enabled)
        let sos = out.sos
        #expect(sos.count == 1)
        let alarm = try #require(sos.first)
        #expect(abs(alarm.impactTime.seconds - 60) < 0.01)
        #expect(alarm.time - alarm.impactTime <= 5)
        #expect(alarm.time > alarm.impactTime)
        #expect(alarm.impactPeak > 39)
        // The last accepted fix, at most one fix interval (1 s here) before the alarm.
        let fix = try #require(alarm.lastFix)
        #expect(fix.coordinate != nil && fix.mode == .threeD)
        #expect(fix.receivedAt <= alarm.time && alarm.time.secondsSince(fix.receivedAt) < 1.5)
        // The review window: vertical acceleration from 1 s before the impact to the alarm.
        #expect(abs(alarm.windowRate - Self.rate) < 1)
        let expected = (alarm.time.secondsSince(alarm.impactTime) + 1) * Self.rate
        #expect(abs(Double(alarm.window.count) - expected) <= 2, "\(alarm.window.count) samples, expected ≈ \(expected)")
        let lead = Int(Self.rate) - 5  // before the impact: riding texture only
        #expect(alarm.window.prefix(lead).allSatisfy { abs($0) < 15 })
        #expect(alarm.window.dropFirst(lead).contains { abs($0) > 15 }, "the hit is in the window")
    }

    @Test func noAlarmUnlessOptedIn() {
        #expect(replay(Self.crash(impactAt: 60)).sos.isEmpty)
    }

    @Test func aHardPotholeWhileRidingIsNotACrash() {
        // The same 6 g hit, but the rider stays upright and keeps riding.
        let ride = SyntheticRide(profile: [(120, 5)])
        let imu = ride.imu(rate: Self.rate) { t in
            t >= 60 && t < 60.05 ? (Vector3(x: 5, y: 3, z: 70), Vector3(x: 0, y: 1, z: 0)) : nil
        }
        #expect(replay(merge(fixes: ride.fixes(), records: imu), configuration: Self.enabled).sos.isEmpty)
    }

    @Test func droppingAParkedBikeIsNotACrash() {
        // Stationary for a minute, then the same impact, fall and stillness.
        let inputs = Self.crash(impactAt: 60, speedBefore: 0)
        #expect(replay(inputs, configuration: Self.enabled).sos.isEmpty)
    }

    @Test func anImpactWithoutAFallIsNotACrash() {
        // Hit and stop upright (e.g. a kerb at speed): no tilt, no alarm.
        #expect(replay(Self.crash(impactAt: 60, fall: false), configuration: Self.enabled).sos.isEmpty)
    }
}

/// Obstacles in a GNSS outage: the IMU keeps the speed gate open while the road still
/// shakes as it did at the last fix; the position comes from the fixes around it.
struct OutageTests {
    static func run(outage: ClosedRange<Double>, riding: Bool) -> [ObstacleEvent] {
        let ride = SyntheticRide(profile: [(5, 0), (60, 5), (40, riding ? 5 : 0), (40, 5)])
        let fixes = ride.fixes().filter { !outage.contains($0.receivedAt.seconds) }
        let imu = ride.imu(rate: 200) { t in
            // A hard pothole 15 s into the outage: drop, then hit.
            if t >= 80 && t < 80.04 { return (Vector3(x: 0, y: 0, z: 2), .zero) }
            if t >= 80.04 && t < 80.08 { return (Vector3(x: 0, y: 0, z: 22), .zero) }
            return nil
        }
        return replay(merge(fixes: fixes, records: imu)).obstacles
    }

    @Test func anObstacleInAnOutageIsFoundAndPlacedBetweenTheFixes() throws {
        let events = Self.run(outage: 65...95, riding: true)
        let hit = try #require(events.first { abs($0.time.seconds - 80) < 0.3 })
        #expect(hit.kind == .pothole)
        // Interpolated between the fixes at ~65 s and ~95 s (5 m/s northwards).
        let c = try #require(hit.coordinate)
        let north = LocalPlane(origin: SyntheticRide(profile: []).start).project(c).north
        #expect(abs(north - 5 * 75) < 15)
    }

    @Test func aRiderWhoStoppedInTheOutageIsNotDetecting() {
        // Same outage, but the rider stands still from 65 s: the vibration falls away,
        // the IMU says "stopped", and the knock at 80 s is not an obstacle.
        #expect(!Self.run(outage: 65...95, riding: false).contains { abs($0.time.seconds - 80) < 0.3 })
        // Control: with fixes present throughout, the standing rider is gated by speed too.
        #expect(!Self.run(outage: 1000...1001, riding: false).contains { abs($0.time.seconds - 80) < 0.3 })
    }
}
