import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation

/// `BikePathBench city RIDERS RIDES SEED`: a simulated city for the corroboration rule
/// (docs/hub.md). Streets are a 4 km × 4 km grid, 200 m apart; 150 true obstacles lie on
/// them. Each ride is a 3 km walk along the streets; a rider who passes a true obstacle
/// reports it with probability 0.6 (GNSS error σ 4 m, kind wrong → `irregularity` one
/// time in five), and confirms 0.1 false candidates per km at random spots of the ride.
/// Prints the corroborated map's precision and recall against the seeded truth, the
/// time to build the map, and the time of a city-wide bounding-box answer.
enum CityBenchmark {
    static let origin = Coordinate(latitude: 52.50, longitude: 13.30)
    static let metresPerDegreeLat = 111_320.0
    static let metresPerDegreeLon = 111_320.0 * cos(52.5 * .pi / 180)

    static func at(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude + y / metresPerDegreeLat, longitude: origin.longitude + x / metresPerDegreeLon)
    }

    static func run(riders: Int, rides: Int, seed: UInt64) {
        var rng = SplitMix64(state: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func gaussian() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) }
        let blocks = 20, spacing = 200.0, kinds = ["pothole", "bump", "debris"]
        // True obstacles on streets: (x, y, kind).
        let truth: [(x: Double, y: Double, kind: String)] = (0..<150).map { _ in
            let along = uniform() * Double(blocks) * spacing, street = Double(Int(uniform() * Double(blocks + 1))) * spacing
            return uniform() < 0.5 ? (along, street, kinds[Int(uniform() * 3)]) : (street, along, kinds[Int(uniform() * 3)])
        }
        var byStreet: [String: [Int]] = [:]
        for (i, t) in truth.enumerated() {
            if t.y.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["h\(Int(t.y))", default: []].append(i) }
            if t.x.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["v\(Int(t.x))", default: []].append(i) }
        }
        var confirmations: [ConfirmedRecord] = []
        let stats = TripStatisticsUpload(distanceM: 3_000, elapsedS: 900, movingS: 850, avgMovingSpeed: 3.5, maxSpeed: 8, elevationGainM: 0, co2AvoidedG: 360)
        for r in 0..<riders {
            for n in 0..<rides {
                var x = Double(Int(uniform() * Double(blocks + 1))) * spacing, y = Double(Int(uniform() * Double(blocks + 1))) * spacing
                var path: [[Double]] = [], obstacles: [ObstacleUpload] = []
                func report(_ px: Double, _ py: Double, _ kind: String) {
                    let c = at(px + gaussian() * 4, py + gaussian() * 4)
                    obstacles.append(ObstacleUpload(id: "O\(obstacles.count)", kind: kind, offsetS: nil, position: WirePosition(lat: c.latitude, lon: c.longitude), origin: "detected"))
                }
                for _ in 0..<15 {  // 15 blocks of 200 m = 3 km
                    let horizontal = uniform() < 0.5
                    let step = (uniform() < 0.5 ? -1.0 : 1.0) * spacing
                    let (nx, ny) = horizontal ? (min(max(x + step, 0), Double(blocks) * spacing), y) : (x, min(max(y + step, 0), Double(blocks) * spacing))
                    for k in stride(from: 0.0, to: 1.0, by: 0.1) { let c = at(x + (nx - x) * k, y + (ny - y) * k); path.append([c.latitude, c.longitude]) }
                    let street = horizontal ? "h\(Int(y))" : "v\(Int(x))"
                    let lo = horizontal ? min(x, nx) : min(y, ny), hi = horizontal ? max(x, nx) : max(y, ny)
                    for i in byStreet[street] ?? [] {
                        let t = truth[i], along = horizontal ? t.x : t.y
                        if along >= lo, along <= hi, uniform() < 0.6 { report(t.x, t.y, uniform() < 0.2 ? "irregularity" : t.kind) }
                    }
                    if uniform() < 0.02 {  // 0.1 false candidates per km: 0.02 per 200 m block
                        let k = uniform()
                        report(x + (nx - x) * k, y + (ny - y) * k, kinds[Int(uniform() * 3)])
                    }
                    (x, y) = (nx, ny)
                }
                let end = at(x, y)
                path.append([end.latitude, end.longitude])
                let trip = TripUpload(id: "T\(n)", startUtcNs: 1_793_520_000_000_000_000, endUtcNs: nil, statistics: stats)
                let draft = DraftUpload(id: "D\(n)", trip: trip, pathStatus: nil, path: path, obstacles: obstacles, roadQuality: [])
                let body = (try? WireJSON.encode(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))) ?? Data()
                confirmations.append(ConfirmedRecord(device: "rider-\(r)", body: body))
            }
        }
        let clock = ContinuousClock()
        var map: SharedMap!
        let build = clock.measure { map = SharedMap.build(confirmations: confirmations) }
        let published = map.obstacles.filter(\.corroborated)
        let truthCoordinates = truth.map { at($0.x, $0.y) }
        let radius = CorroborationRule().radiusMeters
        let truePositives = published.filter { p in truthCoordinates.contains { Geodesic.distance($0, p.position) <= radius } }.count
        let found = truthCoordinates.filter { t in published.contains { Geodesic.distance(t, $0.position) <= radius } }.count
        let city = BoundingBox(west: origin.longitude - 0.01, south: origin.latitude - 0.01,
                               east: at(4_100, 0).longitude, north: at(0, 4_100).latitude)
        var bytes = 0
        let queries = 20
        let query = clock.measure { for _ in 0..<queries { bytes = map.publishedObstacles(in: city).count + map.publishedStatus(in: city).count } }
        let reports = map.reports.count
        print("riders \(riders) × rides \(rides), \(reports) confirmed reports, \(map.obstacles.count) spots, \(published.count) corroborated")
        print(String(format: "precision %.1f %% (%d of %d corroborated spots are true), recall %.1f %% (%d of %d true obstacles found)",
                     100 * Double(truePositives) / Double(max(1, published.count)), truePositives, published.count,
                     100 * Double(found) / Double(truth.count), found, truth.count))
        print("map build \(build), city bbox query \(query / queries) (\(bytes) features)")
    }
}
