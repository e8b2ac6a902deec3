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
/// a city-wide bounding-box answer. `CITY_DEBUG=1` also lists the false corroborated spots
/// and the missed true obstacles (the spots near each, with riders, trips, silent rides and
/// confidence).
///
/// The city: `CitySimulation` (BikePathFixtures).
enum CityBenchmark {
    static let origin = CitySimulation.origin
    static func at(_ x: Double, _ y: Double) -> Coordinate { CitySimulation.at(x, y) }

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
        print(
            "goal: precision ≥ 95 % and recall ≥ 90 % at every scale: \(allMet ? "met" : "NOT met"); recall not falling as data grows (1 point of slack): \(falling ? "NOT met" : "met")"
        )
    }

    /// One city at one size; returns precision and recall (%) and whether both goals are met.
    static func runOnce(riders: Int, rides: Int, seed: UInt64, label: String) -> (Double, Double, Bool) {
        let (spots, generated) = CitySimulation.generate(riders: riders, rides: rides, seed: seed)
        let confirmations = generated.map { ConfirmedRecord(device: $0.device, body: $0.body) }
        let clock = ContinuousClock()
        var map: SharedMap!
        let build = clock.measure { map = SharedMap.build(confirmations: confirmations) }
        // What taking one confirmation into the map's evidence costs (decoding it, its rides,
        // reports and stretches): the part of ingest that a store adds to its sums.
        let evidence = clock.measure {
            for c in confirmations {
                guard let upload = try? WireKeys.decode(ConfirmationUpload.self, from: c.body) else { continue }
                _ = MapEvidence.trip(c.device, upload.draft, rule: CorroborationRule(), pathStatus: PathStatusRule())
            }
        }
        let published = map.obstacles.filter(\.corroborated)
        let truth = spots.filter(\.real).map { at($0.x, $0.y) }
        let radius = CorroborationRule().radiusMeters
        let truePositives = published.filter { p in truth.contains { Geodesic.distance($0, p.position) <= radius } }.count
        let found = truth.filter { t in published.contains { Geodesic.distance(t, $0.position) <= radius } }.count
        let city = BoundingBox(
            west: origin.longitude - 0.01, south: origin.latitude - 0.01,
            east: at(4_100, 0).longitude, north: at(0, 4_100).latitude)
        var features = 0
        let queries = 20
        let query = clock.measure {
            for _ in 0..<queries { features = map.publishedObstacles(in: city).count + map.publishedStatus(in: city).count }
        }
        if ProcessInfo.processInfo.environment["CITY_DEBUG"] != nil {
            let allSpots = spots.map { at($0.x, $0.y) }
            for p in published where !truth.contains(where: { Geodesic.distance($0, p.position) <= radius }) {
                let nearest = allSpots.enumerated().min {
                    Geodesic.distance($0.element, p.position) < Geodesic.distance($1.element, p.position)
                }!
                var near = 0, headings: [Int] = []
                for c in confirmations {
                    guard let u = try? WireKeys.decode(ConfirmationUpload.self, from: c.body) else { continue }
                    let path = u.draft.path.map { Coordinate(latitude: $0[0], longitude: $0[1]) }
                    if (Geodesic.distance(from: p.position, toPath: path) ?? 1e9) <= radius {
                        near += 1
                        if headings.count < 6, let h = CorroborationRule.heading(of: path, near: p.position) { headings.append(Int(h)) }
                    }
                }
                print("  passes within radius \(near), headings \(headings)")
                print(
                    "FP \(p.kind) riders \(p.riders) trips \(p.reportingTrips) misses \(p.passesWithoutReport) conf \(p.confidence) nearest spot \(nearest.offset) real \(spots[nearest.offset].real) at \(Geodesic.distance(nearest.element, p.position)) m"
                )
            }
            // The true obstacles not found, with every spot within the radius (none: no two
            // reports made a spot there) and how far the obstacle lies from its crossing.
            for (i, s) in spots.enumerated() where s.real {
                let t = at(s.x, s.y)
                guard !published.contains(where: { Geodesic.distance(t, $0.position) <= radius }) else { continue }
                let fromCrossing = max(
                    min(
                        s.x.truncatingRemainder(dividingBy: CitySimulation.spacing),
                        CitySimulation.spacing - s.x.truncatingRemainder(dividingBy: CitySimulation.spacing)),
                    min(
                        s.y.truncatingRemainder(dividingBy: CitySimulation.spacing),
                        CitySimulation.spacing - s.y.truncatingRemainder(dividingBy: CitySimulation.spacing)))
                let near = map.obstacles.filter { Geodesic.distance(t, $0.position) <= radius }.map {
                    "[\($0.kind) riders \($0.riders) trips \($0.reportingTrips) silent rides \($0.passesWithoutReport) conf \(String(format: "%.2f", $0.confidence)) at \(Int(Geodesic.distance(t, $0.position).rounded())) m]"
                }
                print(
                    "MISSED \(i) at (\(Int(s.x)), \(Int(s.y))), \(Int(fromCrossing.rounded())) m from a crossing: \(near.isEmpty ? "no spot" : near.joined(separator: " "))"
                )
            }
        }
        let precision = 100 * Double(truePositives) / Double(max(1, published.count))
        let recall = 100 * Double(found) / Double(truth.count)
        let met = precision >= 95 && recall >= 90
        print(
            "\(label): riders \(riders) × rides \(rides), \(map.reports.count) confirmed reports, \(map.obstacles.count) spots, \(published.count) corroborated"
        )
        print(
            String(
                format:
                    "\(label): precision %.1f %% (%d of %d corroborated spots are true), recall %.1f %% (%d of %d true obstacles found): %@",
                precision, truePositives, published.count, recall, found, truth.count, met ? "goals met" : "goals NOT met"))
        print("\(label): map build \(build), city bbox query \(query / queries) (\(features) features)")
        print(
            "\(label): one confirmation's evidence (decoded, rides, reports, stretches): \(evidence / max(1, confirmations.count)) on average"
        )
        return (precision, recall, met)
    }
}
