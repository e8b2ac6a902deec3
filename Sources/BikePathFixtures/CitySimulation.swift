import BikePathAPI
import BikePathCore
import Foundation

/// A simulated city of riders for the hub's shared map: its corroboration benchmark
/// (`BikePathBench city`) and the tiles' equality test. Synthetic; deterministic per seed.
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
/// - Each block ridden is one road-quality stretch: the street's surface, another one time in four.
public enum CitySimulation {
    public static let origin = Coordinate(latitude: 52.50, longitude: 13.30)
    static let metresPerDegreeLat = 111_320.0
    static let metresPerDegreeLon = 111_320.0 * cos(52.5 * .pi / 180)
    public static let blocks = 20, spacing = 200.0
    static let kinds = ["pothole", "bump", "debris"]
    static let statuses = ["optimal", "medium", "sufficient"]

    /// The point `x` metres east and `y` metres north of `origin`.
    public static func at(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(latitude: origin.latitude + y / metresPerDegreeLat, longitude: origin.longitude + x / metresPerDegreeLon)
    }

    /// A seeded obstacle: `real` ones are true, the others systematic false reports.
    public struct Spot: Sendable {
        public var x: Double; public var y: Double; public var kind: String; public var probability: Double; public var real: Bool
    }

    /// The seeded spots and every rider's confirmations (canonical upload bodies), riders named `rider-N`.
    public static func generate(riders: Int, rides: Int, seed: UInt64) -> (spots: [Spot], confirmations: [(device: String, body: Data)]) {
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
        spots += (0..<30).map { _ in
            let p = place(); return Spot(x: p.x, y: p.y, kind: kinds[Int(uniform() * 3)], probability: 0.15, real: false)
        }
        var byStreet: [String: [Int]] = [:]
        for (i, t) in spots.enumerated() {
            if t.y.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["h\(Int(t.y))", default: []].append(i) }
            if t.x.truncatingRemainder(dividingBy: spacing) == 0 { byStreet["v\(Int(t.x))", default: []].append(i) }
        }
        // A route: a start and 15 moves of one block, each along a street.
        func route() -> (start: (Double, Double), moves: [(Bool, Double)]) {
            ((street(), street()), (0..<15).map { _ in (uniform() < 0.5, (uniform() < 0.5 ? -1.0 : 1.0) * spacing) })
        }
        var confirmations: [(device: String, body: Data)] = []
        let stats = TripStatisticsUpload(
            distanceM: 3_000, elapsedS: 900, movingS: 850, avgMovingSpeed: 3.5, maxSpeed: 8, elevationGainM: 0, co2AvoidedG: 360)
        for r in 0..<riders {
            let commute = route()
            for n in 0..<rides {
                let ride = n % 2 == 0 ? commute : route()
                var (x, y) = ride.start
                var path: [[Double]] = [], obstacles: [ObstacleUpload] = [], roadQuality: [RoadSegmentUpload] = []
                func report(_ px: Double, _ py: Double, _ kind: String) {
                    let c = at(px + gaussian() * 4, py + gaussian() * 4)
                    obstacles.append(
                        ObstacleUpload(
                            id: "O\(obstacles.count)", kind: kind, offsetS: nil, position: WirePosition(lat: c.latitude, lon: c.longitude),
                            origin: "detected"))
                }
                for (horizontal, step) in ride.moves {
                    let (nx, ny) =
                        horizontal
                        ? (min(max(x + step, 0), Double(blocks) * spacing), y) : (x, min(max(y + step, 0), Double(blocks) * spacing))
                    for k in stride(from: 0.0, to: 1.0, by: 0.1) {
                        let c = at(x + (nx - x) * k, y + (ny - y) * k); path.append([c.latitude, c.longitude])
                    }
                    let street = horizontal ? "h\(Int(y))" : "v\(Int(x))"
                    let lo = horizontal ? min(x, nx) : min(y, ny), hi = horizontal ? max(x, nx) : max(y, ny)
                    for i in byStreet[street] ?? [] {
                        let t = spots[i], along = horizontal ? t.x : t.y
                        if along >= lo, along <= hi, uniform() < t.probability {
                            report(t.x, t.y, t.real && uniform() < 0.2 ? "irregularity" : t.kind)
                        }
                    }
                    // 0.1 false candidates per km: 0.02 per 200 m block ridden. A move off the
                    // city's edge is clamped to no move at all: no metre ridden, no candidate
                    // (they piled up at the corners, where routes stall on half their moves).
                    if nx != x || ny != y, uniform() < 0.02 {
                        let k = uniform()
                        report(x + (nx - x) * k, y + (ny - y) * k, kinds[Int(uniform() * 3)])
                    }
                    // The block as the device rated it: each street has its surface, riders disagree one time in four.
                    if nx != x || ny != y {
                        let (a, b) = (at(x, y), at(nx, ny))
                        let surface = Int((horizontal ? y : x) / spacing) % 3,
                            status = statuses[uniform() < 0.75 ? surface : Int(uniform() * 3)]
                        roadQuality.append(
                            RoadSegmentUpload(
                                startOffsetS: 0, endOffsetS: 60, start: WirePosition(lat: a.latitude, lon: a.longitude),
                                end: WirePosition(lat: b.latitude, lon: b.longitude), lengthM: abs(nx - x) + abs(ny - y),
                                roughness: 0.1, status: status))
                    }
                    (x, y) = (nx, ny)
                }
                let end = at(x, y)
                path.append([end.latitude, end.longitude])
                let trip = TripUpload(id: "T\(n)", startUtcNs: 1_793_520_000_000_000_000, endUtcNs: nil, statistics: stats)
                let draft = DraftUpload(
                    id: "D\(n)", trip: trip, pathStatus: nil, path: path, obstacles: obstacles, roadQuality: roadQuality)
                let body = (try? WireJSON.encode(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))) ?? Data()
                confirmations.append((device: "rider-\(r)", body: body))
            }
        }
        return (spots, confirmations)
    }
}
