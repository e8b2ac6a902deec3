import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation

/// `BikePathBench matching PBF RIDES SEED` (bench/matching.sh): the streets the hub's OSM
/// import reads from PBF (`OSMImport`; bench/matching.sh gives it
/// ../shared/datasets/osm/central-london.osm.pbf, © OpenStreetMap contributors, ODbL), the
/// street graph built from them, and RIDES simulated rides per noise level (`StreetWalk`:
/// 2–5 km at 5 m/s, a fix a second, σ 5 m and 10 m) matched: the graph's build time, the
/// fixes matched per second, the share of each ride's length on its true street, and the
/// metres of street the match lays per metre ridden (above 1: pieces ridden there and back),
/// and the edges and ways it counts as ridden that the ride never rode (`MatchingPrecision`).
enum MatchingBenchmark {
    static func run(pbf: String, rides count: Int, seed: UInt64) throws {
        let edges = try OSMImport.read(path: pbf).edges
        let clock = ContinuousClock()
        var graph: StreetGraph?
        let built = clock.measure { graph = StreetGraph(edges: edges) }
        let streets = edges.map {
            StreetWalk.Street(
                from: $0.key.from, to: $0.key.to, points: $0.points, forward: $0.direction != .backward, backward: $0.direction != .forward)
        }
        let index = Dictionary(uniqueKeysWithValues: edges.enumerated().map { ($1.key, $0) })
        print("matching: \(edges.count) street edges, graph built in \(built)")
        for sigma in [5.0, 10.0] {
            let matcher = StreetMatcher(graph: graph!, parameters: MatchParameters(sigma: sigma))
            var shares: [Double] = [], fixes = 0, ridden = 0.0, laid = 0.0, elapsed = Duration.zero, next = seed
            var short: [String] = []
            var precision = MatchingPrecision()
            while shares.count < count {
                defer { next += 1 }
                guard let ride = StreetWalk.ride(over: streets, seed: next, sigma: sigma) else { continue }
                let input = ride.fixes.map { MatchFix(position: $0.position, time: SampleTime(seconds: $0.seconds)) }
                var match: StreetMatch?
                elapsed += try clock.measure { match = try matcher.match(input) }
                fixes += input.count
                (ridden, laid) = (ridden + ride.lengthMeters, laid + match!.matchedMeters)
                let matched = match!.runs.flatMap(\.pieces).map {
                    StreetWalk.Stretch(street: index[$0.key]!, forward: $0.way == .forward, from: $0.fromMeters, to: $0.toMeters)
                }
                precision.add(ride: ride, match: match!, index: index, parameters: matcher.parameters)
                shares.append(StreetWalk.sharedMeters(truth: ride.truth, matched: matched) / ride.lengthMeters)
                if shares.last! < 0.97 {
                    let losses = MatchingLosses(ride: ride, match: match!, matched: matched)
                    short.append(
                        "  seed \(next): \(percent(shares.last!)) of \(Int(ride.lengthMeters)) m, \(match!.runs.count) runs; \(losses.line)"
                    )
                }
            }
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            let perSecond = Int(Double(fixes) / seconds)
            print(
                "σ \(Int(sigma)) m: \(count) rides, \(fixes) fixes matched in \(elapsed) (\(perSecond) fixes/s); on the true street: "
                    + "min \(percent(shares.min()!)), mean \(percent(shares.reduce(0, +) / Double(count))); "
                    + "metres matched per metre ridden \(String(format: "%.2f", laid / ridden)); goal ≥ 97 % of every ride: \(shares.min()! >= 0.97 ? "met" : "NOT met")"
            )
            print(precision.line)
            for line in short { print(line) }
        }
    }

    static func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }
}
