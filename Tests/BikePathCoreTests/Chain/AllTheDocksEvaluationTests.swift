import Foundation
import Testing
@testable import BikePathCore

/// Real rides (docs/evaluation.md): trip detection, distance against the raw fixes,
/// moving time, auto-pause; crash detection must stay silent on all of them.
@Suite(.enabled(if: TestData.hasAllTheDocks, "needs ../shared/datasets/allthedocks"))
struct AllTheDocksEvaluationTests {
    @Test func everyRideIsOneTripWithPlausibleDistance() throws {
        var config = PipelineConfiguration()
        config.crashDetectionEnabled = true
        print(
            "ride      fixes  rejected  trips  start(s) raw(m)  trip(m)  diff  rawInTrip doppler vsDopp elapsed(s) moving(s) avg(km/h) paused(s)"
        )
        for ride in AllTheDocksCSV.rides {
            let fixes = try AllTheDocksCSV.fixes(TestData.allTheDocks + "/\(ride)-gps.csv")
            var records: [SensorRecord] = []
            if FileManager.default.fileExists(atPath: TestData.allTheDocks + "/\(ride)-accl.csv") {
                records = try AllTheDocksCSV.imu(
                    accl: TestData.allTheDocks + "/\(ride)-accl.csv",
                    gyro: TestData.allTheDocks + "/\(ride)-gyro.csv")
            }
            var rejected = FixRejections()
            let out = replay(merge(fixes: fixes, records: records), configuration: config) { rejected = $0.status.rejectedFixes }
            let raw = AllTheDocksCSV.rawDistance(fixes)
            let span = out.trips.first.map { t in fixes.filter { $0.receivedAt >= t.startTime && $0.receivedAt <= t.endTime } } ?? []
            let rawInTrip = AllTheDocksCSV.rawDistance(span)
            let doppler = AllTheDocksCSV.dopplerDistance(span)
            let trips = out.trips
            let distance = trips.reduce(0) { $0 + $1.statistics.distanceMeters }
            let diff = (distance - raw) / raw
            let s = trips.first?.statistics ?? TripStatistics()
            let rejectedCount = rejected.badDOP + rejected.jump + rejected.stale + rejected.noPosition
            print(
                String(
                    format: "%@ %6d %6d %6d %8.1f %8.0f %8.0f %+6.1f%% %8.0f %8.0f %+5.1f%% %9.0f %9.0f %8.1f %9.0f",
                    ride, fixes.count, rejectedCount, trips.count, trips.first?.startTime.seconds ?? -1,
                    raw, distance, 100 * diff, rawInTrip, doppler, 100 * (distance - doppler) / doppler, s.elapsedSeconds, s.movingSeconds,
                    s.averageMovingSpeed * 3.6, s.elapsedSeconds - s.movingSeconds))
            #expect(trips.count == 1, "\(ride): one continuous ride should be one trip")
            // The trip integrates the receiver's speed over ground, which position jitter
            // does not inflate, so it never measures more than the raw steps over the same
            // span and agrees with the Doppler integral over the trip within ±2 %
            // (docs/evaluation.md, "Trip distance"; −4.2…+6.6 % from positions alone).
            #expect(distance <= rawInTrip * 1.01, "\(ride): \(distance) m vs raw \(rawInTrip) m in the trip")
            #expect(abs(distance - doppler) / doppler <= 0.02, "\(ride): \(distance) m vs Doppler \(doppler) m")
            #expect(s.movingSeconds <= s.elapsedSeconds)
            #expect(out.sos.isEmpty, "\(ride): no SOS on a real ride")
        }
    }
}
