import Foundation
import Testing
@testable import BikePathCore

/// Properties that hold without labels, over a family of deterministic random rides.
struct ChainInvariantTests {
    /// A stop-and-go ride with IMU from a seed: segment lengths and speeds vary.
    static func ride(seed: UInt64) -> [ChainInput] {
        var rng = seed
        func next(_ n: UInt64) -> UInt64 { rng = rng &* 6364136223846793005 &+ 1442695040888963407; return (rng >> 33) % n }
        var profile: [(Double, Double)] = [(Double(5 + next(30)), 0), (60, 5)]
        for _ in 0..<(3 + next(4)) {
            profile.append((Double(20 + next(120)), Double(next(90)) / 10))
            profile.append((Double(5 + next(60)), 0))
        }
        var ride = SyntheticRide(profile: profile, fixRate: 5, seed: seed)
        ride.altitude = { t in 100 + 10 * sin(t / 50) }
        var imu = ride.imu(rate: 100, texture: 2)
        let markerTime = Double(next(200))
        if seed % 3 == 0 {
            imu.append(.marker(SampleTime(seconds: markerTime), .tripStart))
            imu.append(.marker(SampleTime(seconds: markerTime + 150), .tripStop))
            imu.sort { $0.time < $1.time }
        }
        return merge(fixes: ride.fixes(), records: imu)
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func distanceNeverDecreasesAndMovingNeverExceedsElapsed(seed: UInt64) {
        var lastDistance = 0.0
        var inTrip = false
        var violations = 0
        let out = replay(Self.ride(seed: seed), batchSize: 50) { p in
            let s = p.status
            if let stats = s.tripStatistics {
                if inTrip && stats.distanceMeters < lastDistance { violations += 1 }
                lastDistance = stats.distanceMeters
                inTrip = true
            } else {
                inTrip = false; lastDistance = 0
            }
        }
        #expect(violations == 0)
        #expect(!out.trips.isEmpty)
        for trip in out.trips {
            #expect(trip.statistics.movingSeconds <= trip.statistics.elapsedSeconds)
            #expect(trip.statistics.distanceMeters >= 0 && trip.endTime >= trip.startTime)
        }
        // Every trip that started also ended (finish closes the open one).
        #expect(out.tripStarts.count == out.trips.count)
    }

    @Test(arguments: [2, 5] as [UInt64])
    func sameInputSameOutputWhateverTheBatches(seed: UInt64) {
        let inputs = Self.ride(seed: seed)
        var config = PipelineConfiguration()
        config.crashDetectionEnabled = true
        let reference = replay(inputs, configuration: config, batchSize: 1_000_000)
        #expect(replay(inputs, configuration: config, batchSize: 1_000_000) == reference)
        for size in [1, 3, 17, 256] {
            #expect(replay(inputs, configuration: config, batchSize: size) == reference, "batch \(size)")
        }
        #expect(!reference.isEmpty)
    }
}
