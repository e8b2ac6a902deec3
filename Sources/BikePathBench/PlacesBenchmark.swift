import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation
import Logging

/// `BikePathBench places PBF COPIES SEED STORAGE…` (bench/places.sh): the named places the
/// hub's OSM import reads from PBF (`OSMImport`; bench/places.sh gives it
/// ../shared/datasets/osm/central-london.osm.pbf, © OpenStreetMap contributors, ODbL), each
/// stored COPIES times, copy k shifted k × 0.05° north (a city of real names, larger), in
/// each STORAGE (`sqlite:PATH` or a `postgres://` URL); then per store the p95 of
/// `places(matching:near:limit:)` (candidates read, ranked) over real names, half of them
/// with one letter dropped, near random points of the city; and whether the stores agree.
enum PlacesBenchmark {
    static let queries = 200

    static func run(pbf: String, copies: Int, seed: UInt64, storages arguments: [String]) async throws {
        let named = try OSMImport.read(path: pbf).places
        let places = (0..<copies).flatMap { k in
            named.map {
                Place(
                    osmID: k == 0 ? $0.osmID : "\($0.osmID)+\(k)", name: $0.name, kind: $0.kind,
                    position: Coordinate(latitude: $0.position.latitude + Double(k) * 0.05, longitude: $0.position.longitude))
            }
        }
        var rng = SplitMix64(state: seed)
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let asked = (0..<queries).map { i -> (String, Coordinate) in
            let p = places[below(places.count)]
            var name = Array(p.name)
            if i % 2 == 1, name.count > 4 { name.remove(at: 1 + below(name.count - 2)) }  // a typo
            let near = places[below(places.count)].position
            return (String(name), near)
        }
        print("places: \(named.count) named in the extract, \(places.count) stored (\(copies) copies); \(queries) queries")
        var answers: [[[String]]] = []
        let clock = ContinuousClock()
        for storage in arguments.map({ $0.hasPrefix("sqlite:") ? HubStorage.sqlite(path: String($0.dropFirst(7))) : .postgres(url: $0) }) {
            let name = if case .sqlite = storage { "SQLite" } else { "PostgreSQL" }
            try await storage.withStore(logger: Logger(label: "bench")) { store in
                try await store.migrate()
                let stored = try await clock.measure { try await store.replacePlaces(places) }
                var times: [Duration] = [], database: [Duration] = [], found: [[String]] = [], empty = 0, candidates: [Int] = []
                for (q, near) in asked {
                    var result: [PlaceSearch.Found] = []
                    times.append(try await clock.measure { result = try await store.places(matching: q, near: near, limit: 10) })
                    // The database's part alone: the candidates, not ranked.
                    database.append(
                        try await clock.measure { candidates.append(try await store.placeCandidates(PlaceSearch(query: q)).count) })
                    found.append(result.map(\.place.osmID))
                    if result.isEmpty { empty += 1 }
                }
                answers.append(found)
                let p95 = NetworkBenchmark.percentile(times, 95)
                print(
                    "\(name): places stored in \(stored); search p50 \(NetworkBenchmark.percentile(times, 50)), p95 \(p95) "
                        + "(candidates alone p95 \(NetworkBenchmark.percentile(database, 95)), at most \(candidates.max() ?? 0) a query, "
                        + "\(candidates.filter { $0 >= PlaceSearch.maxCandidates }.count) at the cap; \(empty) of \(queries) found nothing); "
                        + "goal p95 < 20 ms: \(p95 < .milliseconds(20) ? "met" : "NOT met")")
            }
        }
        if answers.count == 2 {
            let differ = zip(answers[0], answers[1]).filter { $0 != $1 }.count
            print("the stores answer the same places in the same order for \(queries - differ) of \(queries) queries")
        }
    }
}
