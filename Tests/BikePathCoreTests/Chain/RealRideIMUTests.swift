import Foundation
import Testing
@testable import BikePathCore

/// The one AllTheDocks ride with IMU and GNSS: obstacles, road quality, batch invariance.
@Suite(.enabled(if: TestData.hasAllTheDocks, "needs ../shared/datasets/allthedocks"))
struct RealRideIMUTests {
    static func inputs() throws -> [ChainInput] {
        let root = TestData.allTheDocks
        return merge(
            fixes: try AllTheDocksCSV.fixes(root + "/GX010056-gps.csv"),
            records: try AllTheDocksCSV.imu(accl: root + "/GX010056-accl.csv", gyro: root + "/GX010056-gyro.csv"))
    }

    @Test func obstaclesAndRoadQualityOnARealRide() throws {
        var config = PipelineConfiguration()
        config.crashDetectionEnabled = true
        let out = replay(try Self.inputs(), configuration: config)
        let trip = try #require(out.trips.first)
        let obstacles = out.obstacles, segments = out.segments
        var statuses: [PathStatus: Int] = [:]
        for s in segments { statuses[s.status, default: 0] += 1 }
        print(
            "GX010056: \(Int(trip.statistics.distanceMeters)) m, \(obstacles.count) obstacles "
                + "(\(ObstacleKind.allCases.map { k in "\(k.rawValue) \(obstacles.filter { $0.kind == k }.count)" }.joined(separator: ", "))), "
                + "\(segments.count) segments: \(PathStatus.allCases.map { "\($0.rawValue) \(statuses[$0] ?? 0)" }.joined(separator: ", ")), "
                + "roughness \(segments.map { String(format: "%.2f", $0.roughness) }.joined(separator: " "))")
        for o in obstacles {
            print(
                String(
                    format: "  obstacle t=%.2f s %@ peak %.1f m/s² speed %.1f m/s", o.time.seconds, o.kind.rawValue, o.peak, o.speed ?? -1))
        }
        #expect(out.sos.isEmpty)
        // Every 50 m stretch of moving trip is rated (pauses break stretches, so fewer).
        #expect(segments.count >= Int(trip.statistics.distanceMeters / 50) - 3)
        #expect(segments.allSatisfy { $0.lengthMeters >= 50 && $0.roughness.isFinite })
        // Candidates for review, not a stream: fewer than one per 20 m on a city ride.
        #expect(obstacles.count < Int(trip.statistics.distanceMeters / 20))
        for o in obstacles {
            #expect(o.coordinate != nil && (o.speed ?? 0) >= config.obstacleMinSpeed * 0.5)
            #expect(!o.window.isEmpty && o.windowRate > 150 && o.windowRate < 250)
        }
    }

    @Test func batchSizeDoesNotChangeTheOutput() throws {
        let inputs = try Self.inputs()
        let reference = replay(inputs, batchSize: 100_000)
        for size in [1, 7, 64, 997] {
            #expect(replay(inputs, batchSize: size) == reference, "batch size \(size)")
        }
        #expect(!reference.isEmpty)
    }
}
