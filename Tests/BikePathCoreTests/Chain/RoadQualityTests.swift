import Testing
@testable import BikePathCore

struct RoadQualityTests {
    static func segments(speed: Double, texture: Float) -> [RoadQualitySegment] {
        let ride = SyntheticRide(profile: [(5, 0), (200, speed)], fixRate: 5)
        return replay(merge(fixes: ride.fixes(), records: ride.imu(rate: 200, texture: texture))).segments
    }

    @Test func stretchesAreFiftyMetresAndRougherRoadsRateWorse() throws {
        let smooth = Self.segments(speed: 5, texture: 0.5)
        let rough = Self.segments(speed: 5, texture: 12)
        // 1000 m ridden; rating starts once the trip has started (cycling from ≈ 9 s after
        // the 4 s activity hold, trip after 30 s more: ≈ 39 s), so ≈ 830 m are rated: 16 full
        // stretches. (17 before the trip integrated the exact Doppler speed: the fixes'
        // ±1 m position noise lengthened the steps by ≈ 4 %.)
        #expect(smooth.count >= 16)
        #expect(smooth.allSatisfy { $0.lengthMeters >= 50 && $0.lengthMeters < 52 })
        #expect(smooth.allSatisfy { $0.status == .optimal })
        #expect(rough.allSatisfy { $0.status == .requiresMaintenance })
        let order = PathStatus.allCases
        #expect(zip(smooth, rough).allSatisfy { order.firstIndex(of: $0.status)! < order.firstIndex(of: $1.status)! })
    }

    @Test func theIndexIsNormalisedForSpeed() throws {
        // The synthetic road shakes in proportion to speed (as a random road profile does
        // under the linear model), so the normalised index must not depend on speed.
        let slow = Self.segments(speed: 3, texture: 2).map(\.roughness)
        let fast = Self.segments(speed: 7, texture: 2).map(\.roughness)
        let mean = { (x: [Double]) in x.reduce(0, +) / Double(max(x.count, 1)) }
        #expect(!slow.isEmpty && !fast.isEmpty)
        #expect(abs(mean(slow) - mean(fast)) / mean(fast) < 0.08)
    }

    @Test func thresholdsMapToPathStatus() {
        let t = RoadQualityThresholds()
        #expect(t.status(for: 0.5) == .optimal)
        #expect(t.status(for: 1.0) == .medium)
        #expect(t.status(for: 2.0) == .sufficient)
        #expect(t.status(for: 3.0) == .requiresMaintenance)
    }
}
