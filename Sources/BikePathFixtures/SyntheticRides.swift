import BikePathCore
import Foundation

/// A deterministic stream of chain outputs (trips riding east at ~5 m/s with
/// obstacles, road quality and one SOS) for the kill test, the disk-full test and
/// bench/store.sh. Not used when riding.
public enum SyntheticRides {
    /// Outputs in sample-time order, each with the sample time to pass as `now`.
    public static func stream(trips: Int, secondsPerTrip: Int, windowSamples: Int = 200) -> [(output: ChainOutput, now: SampleTime)] {
        var out: [(ChainOutput, SampleTime)] = []
        var t = 1_000.0
        var lon = 13.40
        let lat = 52.52
        for trip in 0..<trips {
            let start = SampleTime(seconds: t)
            let startUTC = UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + start.nanoseconds)
            out.append((.activity(start, .cycling), start))
            out.append((.tripStarted(start, startUTC), start))
            var path: [Coordinate] = []
            var distance = 0.0
            var segmentStart = start
            var segmentStartLon = lon
            for s in 0..<secondsPerTrip {
                let now = SampleTime(seconds: t)
                let speed = 5.0 + Double((s * 7 + trip) % 5) * 0.2
                let step = speed / (111_320 * 0.6088)  // degrees of longitude at 52.5°N
                if s > 0 { lon += step; distance += speed }
                let c = Coordinate(latitude: lat, longitude: lon)
                path.append(c)
                let utc = UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + now.nanoseconds)
                out.append(
                    (.trackPoint(TrackPoint(time: now, utc: utc, coordinate: c, altitudeMSL: 34 + Double(s % 20) * 0.1, speed: speed)), now)
                )
                if s % 45 == 30 {
                    let window = (0..<windowSamples).map { Float(sin(Double($0 + s) * 0.3)) * 4 }
                    let kind = ObstacleKind.allCases[(s / 45) % ObstacleKind.allCases.count]
                    out.append(
                        (
                            .obstacle(
                                ObstacleEvent(
                                    time: now, utc: utc, coordinate: c, speed: speed, kind: kind, peak: 6 + Double(s % 7),
                                    energy: 2.5, window: window, windowRate: 100)), now
                        ))
                }
                if s > 0, s % 60 == 0 {
                    let segEnd = Coordinate(latitude: lat, longitude: lon)
                    out.append(
                        (
                            .roadQuality(
                                RoadQualitySegment(
                                    startTime: segmentStart, endTime: now,
                                    start: Coordinate(latitude: lat, longitude: segmentStartLon), end: segEnd,
                                    lengthMeters: 300, roughness: Double(s % 9) / 3,
                                    status: PathStatus.allCases[(s / 60) % 4])), now
                        ))
                    segmentStart = now
                    segmentStartLon = lon
                }
                if trip == 1, s == secondsPerTrip / 2 {
                    let fix = GNSSFix(receivedAt: now, time: utc, mode: .threeD, latitude: lat, longitude: lon, speed: 0)
                    out.append((.sos(SOSEvent(time: now + 3, impactTime: now, impactPeak: 42, lastFix: fix)), now))
                }
                t += 1
            }
            let end = SampleTime(seconds: t - 1)
            var stats = TripStatistics()
            stats.distanceMeters = distance
            stats.elapsedSeconds = end - start
            stats.movingSeconds = end - start
            stats.averageMovingSpeed = distance / max(1, end - start)
            stats.maxSpeed = 5.8
            stats.co2AvoidedGrams = distance / 1000 * 120
            let record = TripRecord(
                startTime: start, endTime: end, startUTC: startUTC,
                endUTC: UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + end.nanoseconds),
                statistics: stats, path: path.enumerated().filter { $0.offset % 10 == 0 }.map(\.element))
            out.append((.tripEnded(record), end))
            out.append((.activity(end, .stationary), end))
            t += 120
        }
        return out
    }
}
