import Testing
@testable import BikePathCore

/// Obstacles inside the chain: position and speed from the fixes, repeats merged,
/// nothing while too slow.
struct ObstacleChainTests {
    /// Riding at `speed` after a 5 s stand; hits (drop then impact) at the given times.
    static func obstacles(
        speed: Double, hits: [Double],
        profile: [(Double, Double)]? = nil
    ) -> [ObstacleEvent] {
        let ride = SyntheticRide(profile: profile ?? [(5, 0), (100, speed)], fixRate: 5)
        let imu = ride.imu(rate: 200) { t in
            for h in hits {
                if t >= h && t < h + 0.04 { return (Vector3(x: 0, y: 0, z: 2), .zero) }
                if t >= h + 0.04 && t < h + 0.08 { return (Vector3(x: 0, y: 0, z: 22), .zero) }
            }
            return nil
        }
        return replay(merge(fixes: ride.fixes(), records: imu)).obstacles
    }

    @Test func aHitGetsItsPositionAndSpeedFromTheFixes() throws {
        let events = Self.obstacles(speed: 5, hits: [60])
        #expect(events.count == 1)
        let e = try #require(events.first)
        #expect(e.kind == .pothole && abs(e.time.seconds - 60.05) < 0.1)
        #expect(abs((e.speed ?? 0) - 5) < 0.2)
        let north = LocalPlane(origin: SyntheticRide(profile: []).start).project(try #require(e.coordinate)).north
        #expect(abs(north - 5 * 55) < 3)  // 55 s at 5 m/s
        #expect(e.windowRate > 199 && e.windowRate < 201 && e.window.count >= 100)
    }

    @Test func theRearWheelOnTheSameHoleIsNotASecondObstacle() {
        // 0.5 s apart at 5 m/s is 2.5 m (< 5 m): one obstacle; 3 s apart is 15 m: two.
        #expect(Self.obstacles(speed: 5, hits: [60, 60.5]).count == 1)
        #expect(Self.obstacles(speed: 5, hits: [60, 63]).count == 2)
    }

    @Test func nothingIsDetectedBelowTheGateSpeed() {
        // In the trip, slowed to 1.5 m/s (under the 2 m/s gate) from 65 to 85 s.
        let slowed: [(Double, Double)] = [(5, 0), (60, 5), (20, 1.5), (20, 5)]
        #expect(Self.obstacles(speed: 0, hits: [75], profile: slowed).isEmpty)
        #expect(Self.obstacles(speed: 0, hits: [95], profile: slowed).count == 1)
    }
}
