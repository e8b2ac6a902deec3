import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation
import Logging

/// `BikePathBench street-routes PBF SEED STORAGE…` (bench/network.sh): the streets the hub's
/// OSM import reads from PBF (`OSMImport`; bench/network.sh gives it
/// ../shared/datasets/osm/central-london.osm.pbf, © OpenStreetMap contributors, ODbL)
/// stored in each STORAGE (`sqlite:PATH` or a `postgres://` URL), no community path; then
/// per store the p95 of a route search (k = 3) between random points of streets 0.5–3 km
/// apart, and whether the stores agree on every best route.
enum StreetRouteBenchmark {
    static let queries = 40

    static func run(pbf: String, seed: UInt64, storages arguments: [String]) async throws {
        let edges = try OSMImport.read(path: pbf).edges
        let km = edges.map(\.lengthMeters).reduce(0, +) / 1_000
        var rng = SplitMix64(state: seed)
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        func point() -> Coordinate {
            let e = edges[below(edges.count)]
            return Geodesic.interpolate(e.points[0], e.points[1], 0.5)
        }
        var pairs: [(Coordinate, Coordinate)] = []
        while pairs.count < queries {
            let (a, b) = (point(), point())
            if (500...3_000).contains(Geodesic.distance(a, b)) { pairs.append((a, b)) }
        }
        print("streets: \(edges.count) edges, \(Int(km)) km; \(queries) route searches 0.5–3 km")
        var answers: [[Double]] = []
        let clock = ContinuousClock()
        for storage in arguments.map({ $0.hasPrefix("sqlite:") ? HubStorage.sqlite(path: String($0.dropFirst(7))) : .postgres(url: $0) }) {
            let name = if case .sqlite = storage { "SQLite" } else { "PostgreSQL" }
            try await storage.withStore(logger: Logger(label: "bench")) { store in
                try await store.migrate()
                try await store.replaceStreets(edges)
                try await KeptGraphFigures.profile(store, name, pairs: Array(pairs.prefix(10)), clock: clock)
                try await KeptGraphFigures.firstSearch(store, name, pairs[0], clock: clock)
                var times: [Duration] = [], scores: [Double] = [], refused = 0
                for (a, b) in pairs {
                    let (time, routes, problem) = try await NetworkBenchmark.timedSearch(store, a, b, clock: clock)
                    times.append(time)
                    if problem != nil { refused += 1 }
                    scores.append(routes.first.map { ($0.score * 10).rounded() / 10 } ?? -1)
                }
                answers.append(scores)
                let p95 = NetworkBenchmark.percentile(times, 95)
                print(
                    "\(name): street route search (k = 3, 0.5–3 km, the kept graph built) p50 \(NetworkBenchmark.percentile(times, 50)), p95 \(p95) "
                        + "(\(refused) of \(queries) found none); goal p95 < 30 ms: \(p95 < .milliseconds(30) ? "met" : "NOT met")")
            }
        }
        if answers.count == 2 {
            let same = zip(answers[0], answers[1]).filter { $0 == $1 }.count
            print("stores: the same best street route score on \(same) of \(queries) queries")
        }
    }
}
