import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation

/// `BikePathBench city RIDERS RIDES SEED [SCALES]`: a simulated city for the corroboration
/// rule (docs/hub.md), run at each scale of SCALES (default 1,4,16): a scale s has √s × the
/// riders and √s × the rides each, so s × the data. Prints each scale's precision and
/// recall against the seeded truth, whether the goals are met (precision ≥ 95 %, recall
/// ≥ 90 %, recall not falling as data grows), the time to build the map, and the time of
/// a city-wide bounding-box answer.
///
/// The city: streets on a 4 km × 4 km grid, 200 m apart.
/// - 150 true obstacles on the streets, a third of them 5–12 m from a crossing (riders on
///   the crossing street pass within the radius without the chance to hit them).
/// - 30 systematic false spots (a manhole cover, a tram rail): 15 % of the riders who pass
///   along one report it, always at the same place.
/// - Each rider has a commute (one fixed 3 km route) and rides it on half of their rides;
///   the other half are 3 km random walks along the streets.
/// - A rider passing a true obstacle reports it with probability 0.6 (GNSS error σ 4 m,
///   kind wrong → `irregularity` one time in five), and confirms 0.1 false candidates per
///   km at random spots of the ride. Paths are sent with a point every 20 m.
enum CityBenchmark {
    static let origin = Coordinate(latitude: 52.50, longitude: 13.30)
    static let metresPerDegreeLat = 111_320.0
    static let metresPerDegreeLon = 111_320.0 * cos(52.5 * .pi / 180)
    static let blocks = 20, spacing = 200.0, kinds = ["pothole", "bump", "debris"]

    static func at(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude + y / metresPerDegreeLat, longitude: origin.longitude + x / metresPerDegreeLon)
    }

    struct Spot { var x: Double; var y: Double; var kind: String; var probability: Double; var real: Bool }

    static func run(riders: Int, rides: Int, seed: UInt64, scales: [Double] = [1, 4, 16]) {
        var recalls: [Double] = []
        var allMet = true
        for scale in scales {
            let r = max(1, Int((Double(riders) * scale.squareRoot()).rounded()))
            let n = max(1, Int((Double(rides) * scale.squareRoot()).rounded()))
            let (_, recall, met) = runOnce(riders: r, rides: n, seed: seed, label: "\(Int(scale))×")
            recalls.append(recall)
            allMet = allMet && met
        }
        let falling = zip(recalls, recalls.dropFirst()).contains { $1 < $0 - 1.0 }
        print("goal: precision ≥ 95 % and recall ≥ 90 % at every scale: \(allMet ? "met" : "NOT met"); recall not falling as data grows (1 point of slack): \(falling ? "NOT met" : "met")")
    }

    /// One city at one size; returns precision and recall (%) and whether both goals are met.
    static func runOnce(riders: Int, rides: Int, seed: UInt64, label: String) -> (Double, Double, Bool) {
        var rng = SplitMix64(state: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func gaussian() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) }
        func street() -> Double { Double(Int(uniform() * Double(blocks + 1))) * spacing }
        func place() -> (x: Double, y: Double) {
            let along = uniform() * Double(blocks) * spacing, s = street()
            return uniform() < 0.5 ? (along, s) : (s, along)
        }
        var spots: [Spot] = (0..<150).map { i in
            var p = place()
            if i % 3 == 0 {  // near a crossing: 5–12 m from it along the street
                let offset = (5 + uniform() * 7) * (uniform() < 0.5 ? -1 : 1)
                if p.y.truncatingRemainder(dividingBy: spacing) == 0 {
                    p.x = min(max((p.x / spacing).rounded() * spacing + offset, 0), Double(blocks) * spacing)
                } else {
                    p.y = min(max((p.y / spacing).rounded() * spacing + offset, 0), Double(blocks) * spacing)
                }
            }
            return Spot(x: p.x, y: p.y, kind: kinds[Int(uniform() * 3)], probability: 0.6, real: true)
        }
        spots += (0..<30).map { _ in let p = place(); return Spot(x: p.x, y: p.y, kind: kinds[Int(uniform() * 3)], probability: 0.15, real: false) }
        var byStreet: [String: [Int]] = [:]
        for (i, t) in spots.enumerated() {
            if t.y.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["h\(Int(t.y))", default: []].append(i) }
            if t.x.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["v\(Int(t.x))", default: []].append(i) }
        }
        // A route: a start and 15 moves of one block, each along a street.
        func route() -> (start: (Double, Double), moves: [(Bool, Double)]) {
            ((street(), street()), (0..<15).map { _ in (uniform() < 0.5, (uniform() < 0.5 ? -1.0 : 1.0) * spacing) })
        }
        var confirmations: [ConfirmedRecord] = []
        let stats = TripStatisticsUpload(distanceM: 3_000, elapsedS: 900, movingS: 850, avgMovingSpeed: 3.5, maxSpeed: 8, elevationGainM: 0, co2AvoidedG: 360)
        for r in 0..<riders {
            let commute = route()
            for n in 0..<rides {
                let ride = n % 2 == 0 ? commute : route()
                var (x, y) = ride.start
                var path: [[Double]] = [], obstacles: [ObstacleUpload] = []
                func report(_ px: Double, _ py: Double, _ kind: String) {
                    let c = at(px + gaussian() * 4, py + gaussian() * 4)
                    obstacles.append(ObstacleUpload(id: "O\(obstacles.count)", kind: kind, offsetS: nil, position: WirePosition(lat: c.latitude, lon: c.longitude), origin: "detected"))
                }
                for (horizontal, step) in ride.moves {
                    let (nx, ny) = horizontal ? (min(max(x + step, 0), Double(blocks) * spacing), y) : (x, min(max(y + step, 0), Double(blocks) * spacing))
                    for k in stride(from: 0.0, to: 1.0, by: 0.1) { let c = at(x + (nx - x) * k, y + (ny - y) * k); path.append([c.latitude, c.longitude]) }
                    let street = horizontal ? "h\(Int(y))" : "v\(Int(x))"
                    let lo = horizontal ? min(x, nx) : min(y, ny), hi = horizontal ? max(x, nx) : max(y, ny)
                    for i in byStreet[street] ?? [] {
                        let t = spots[i], along = horizontal ? t.x : t.y
                        if along >= lo, along <= hi, uniform() < t.probability { report(t.x, t.y, t.real && uniform() < 0.2 ? "irregularity" : t.kind) }
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
        let truth = spots.filter(\.real).map { at($0.x, $0.y) }
        let radius = CorroborationRule().radiusMeters
        let truePositives = published.filter { p in truth.contains { Geodesic.distance($0, p.position) <= radius } }.count
        let found = truth.filter { t in published.contains { Geodesic.distance(t, $0.position) <= radius } }.count
        let city = BoundingBox(west: origin.longitude - 0.01, south: origin.latitude - 0.01,
                               east: at(4_100, 0).longitude, north: at(0, 4_100).latitude)
        var features = 0
        let queries = 20
        let query = clock.measure { for _ in 0..<queries { features = map.publishedObstacles(in: city).count + map.publishedStatus(in: city).count } }
        if ProcessInfo.processInfo.environment["CITY_DEBUG"] != nil {
            let allSpots = spots.map { at($0.x, $0.y) }
            for p in published where !truth.contains(where: { Geodesic.distance($0, p.position) <= radius }) {
                let nearest = allSpots.enumerated().min { Geodesic.distance($0.element, p.position) < Geodesic.distance($1.element, p.position) }!
                var near = 0, headings: [Int] = []
                for c in confirmations {
                    guard let u = try? JSONDecoder().decode(ConfirmationUpload.self, from: c.body) else { continue }
                    let path = u.draft.path.map { Coordinate(latitude: $0[0], longitude: $0[1]) }
                    if (Geodesic.distance(from: p.position, toPath: path) ?? 1e9) <= radius {
                        near += 1
                        if headings.count < 6, let h = CorroborationRule.heading(of: path, near: p.position) { headings.append(Int(h)) }
                    }
                }
                print("  passes within radius \(near), headings \(headings)")
                print("FP \(p.kind) riders \(p.riders) trips \(p.reportingTrips) misses \(p.passesWithoutReport) conf \(p.confidence) nearest spot \(nearest.offset) real \(spots[nearest.offset].real) at \(Geodesic.distance(nearest.element, p.position)) m")
            }
        }
        let precision = 100 * Double(truePositives) / Double(max(1, published.count))
        let recall = 100 * Double(found) / Double(truth.count)
        let met = precision >= 95 && recall >= 90
        print("\(label): riders \(riders) × rides \(rides), \(map.reports.count) confirmed reports, \(map.obstacles.count) spots, \(published.count) corroborated")
        print(String(format: "\(label): precision %.1f %% (%d of %d corroborated spots are true), recall %.1f %% (%d of %d true obstacles found): %@",
                     precision, truePositives, published.count, recall, found, truth.count, met ? "goals met" : "goals NOT met"))
        print("\(label): map build \(build), city bbox query \(query / queries) (\(features) features)")
        return (precision, recall, met)
    }
}
