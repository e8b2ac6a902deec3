import BikePathAPI
import BikePathCore
import Foundation

/// A synthesised city of community paths for the network and route benchmarks: a square
/// grid of streets 200 m apart, each ridden end to end by two riders (of a pool of 500)
/// with GNSS noise (σ 2.5 m per point, a point every 25 m), so every street is public.
/// Each street has a surface (optimal, medium, sufficient, requiresMaintenance, in a
/// seeded pattern) that both riders rate it with, a stretch per 500 m. Deterministic per seed.
public enum GridCity {
    public static let spacing = 200.0
    public static let origin = Coordinate(latitude: 52.30, longitude: 13.00)
    static let metresPerDegreeLat = 111_320.0

    /// The point `x` metres east and `y` metres north of `origin`.
    public static func at(_ x: Double, _ y: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + y / metresPerDegreeLat,
            longitude: origin.longitude + x / (metresPerDegreeLat * cos(origin.latitude * .pi / 180)))
    }

    /// The side (metres) of a city with at least `kilometres` of streets: 2 (side / spacing + 1) streets of `side`.
    public static func side(kilometres: Double) -> Double {
        var streets = 2.0
        while 2 * streets * (streets - 1) * spacing / 1_000 < kilometres { streets += 1 }
        return (streets - 1) * spacing
    }

    /// Every street's two rides as confirmation upload bodies, streets in order (east–west, then north–south).
    public static func rides(kilometres: Double, seed: UInt64) -> [(device: String, body: Data)] {
        var rng = SplitMix64(state: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func gaussian() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) }
        let side = side(kilometres: kilometres), streets = Int(side / spacing) + 1
        let statuses = PathStatus.allCases.map(\.rawValue)
        var out: [(device: String, body: Data)] = []
        for horizontal in [true, false] {
            for s in 0..<streets {
                let surface = statuses[(s * 7 + (horizontal ? 0 : 3)) % 11 < 6 ? 0 : (s * 7) % 11 < 9 ? 1 : (s % 2 == 0 ? 2 : 3)]
                for rider in 0..<2 {
                    let device = "rider-\(Int(uniform() * 500))-\(rider)"
                    func point(_ along: Double) -> Coordinate {
                        let (x, y) = horizontal ? (along, Double(s) * spacing) : (Double(s) * spacing, along)
                        return at(x + gaussian() * 2.5, y + gaussian() * 2.5)
                    }
                    let path = stride(from: 0.0, through: side, by: 25).map(point)
                    let stretches = stride(from: 0.0, to: side, by: 500).map { a -> RoadSegmentUpload in
                        let (p, q) = (point(a), point(min(a + 500, side)))
                        return RoadSegmentUpload(
                            startOffsetS: a / 5, endOffsetS: min(a + 500, side) / 5, start: WirePosition(lat: p.latitude, lon: p.longitude),
                            end: WirePosition(lat: q.latitude, lon: q.longitude), lengthM: min(500, side - a), roughness: 0.1,
                            status: surface)
                    }
                    let stats = TripStatisticsUpload(
                        distanceM: side, elapsedS: side / 5, movingS: side / 5, avgMovingSpeed: 5, maxSpeed: 8,
                        elevationGainM: 0, co2AvoidedG: side * 0.12)
                    let trip = TripUpload(id: "T\(out.count)", startUtcNs: 1_793_520_000_000_000_000, endUtcNs: nil, statistics: stats)
                    let draft = DraftUpload(
                        id: "D\(out.count)", trip: trip, pathStatus: surface, path: path.map { [$0.latitude, $0.longitude] },
                        obstacles: [], roadQuality: stretches)
                    let body = (try? WireJSON.encode(ConfirmationUpload(confirmed: true, confirmedSha256: nil, draft: draft))) ?? Data()
                    out.append((device, body))
                }
            }
        }
        return out
    }
}
