import BikePathAPI

/// The confirmations that took a hub down before its upload budget (docs/hub.md, "Upload
/// budget"), for the hostile benchmark (bench/hostile.sh) and the tests: each one the hub
/// must now refuse 400 at the door, in milliseconds for all but the giant's decoding.
public enum HostileRides {
    /// A confirmation of a ride along `path` with `stretches` of road quality.
    public static func confirmation(_ id: String, path: [[Double]], stretches: [RoadSegmentUpload] = []) -> ConfirmationUpload {
        let stats = TripStatisticsUpload(
            distanceM: 3_000, elapsedS: 900, movingS: 850, avgMovingSpeed: 3.5, maxSpeed: 8, elevationGainM: 10, co2AvoidedG: 360)
        let trip = TripUpload(id: "T-\(id)", startUtcNs: 1_793_520_000_000_000_000, endUtcNs: nil, statistics: stats)
        let draft = DraftUpload(id: id, trip: trip, pathStatus: nil, path: path, obstacles: [], roadQuality: stretches)
        return ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft)
    }

    /// 1,250 laps round the North Pole (66 KB): it grew a map maintainer to 3 GB, killed, and
    /// every restart indexed it again.
    public static func polar(_ id: String) -> ConfirmationUpload {
        let lap: [[Double]] = [[90, 0], [90, 180], [89.9999, 90], [90, -180]]
        return confirmation(id, path: Array(repeating: lap, count: 1_250).flatMap { $0 })
    }

    /// 8,700 steps 1.99 km east and back, 11 m north each (348 KB): 19 s of maintainer CPU.
    public static func zigzag(_ id: String) -> ConfirmationUpload {
        let path = (0..<8_700).map { i -> [Double] in
            let east: Double = i % 2 == 0 ? 0 : 0.0287
            return [51.5 + Double(i) * 0.0001, -0.1 + east]
        }
        return confirmation(id, path: path)
    }

    /// `points` path points 1.1 m apart and `stretches` road-quality stretches of 4.4 m, due north
    /// from 51.3° N: at 200,000 and 50,000 a 12 MB body, 47 s of maintainer CPU before the budget.
    public static func giant(_ id: String, points: Int = 200_000, stretches: Int = 50_000) -> ConfirmationUpload {
        let road = (0..<stretches).map { i -> RoadSegmentUpload in
            let a = WirePosition(lat: 51.3 + Double(i) * 0.00004, lon: -0.2)
            let b = WirePosition(lat: 51.3 + Double(i + 1) * 0.00004, lon: -0.2)
            return RoadSegmentUpload(
                startOffsetS: Double(i), endOffsetS: Double(i + 1), start: a, end: b, lengthM: 4.4, roughness: 0.1, status: "medium")
        }
        let path = (0..<points).map { i -> [Double] in [51.3 + Double(i) * 0.00001, -0.2] }
        return confirmation(id, path: path, stretches: road)
    }
}
