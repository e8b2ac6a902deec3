import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import Foundation
import Logging

/// `BikePathBench network KM SEED EXPORT_DIR STORAGE…` (bench/network.sh): the community
/// path network of a synthesised city (`GridCity`, at least KM km of public paths) stored
/// in each STORAGE (`sqlite:PATH` or a `postgres://` URL), then per store:
/// - one more ride appended (stored, network and tiles brought up to date, as the map
///   maintainer does after an upload), against the same on an empty store;
/// - the p95 of a 1 km² `/v1/map/network` answer (links read, edges joined, GeoJSON);
/// - the p95 of a route search (k = 3) between random places 2–8 km apart, the
///   alternatives' overlap bound checked, and each query's links and best score written
///   to EXPORT_DIR for an independent shortest-path check (bench/route-check.py);
/// - whether the stores agree on every best route.
enum NetworkBenchmark {
    static let queries = 40

    static func run(kilometres: Double, seed: UInt64, exportDir: String, storages arguments: [String]) async throws {
        let storages = arguments.map {
            $0.hasPrefix("sqlite:") ? HubStorage.sqlite(path: String($0.dropFirst(7))) : HubStorage.postgres(url: $0)
        }
        let clock = ContinuousClock()
        let city = GridCity.rides(kilometres: kilometres, seed: seed).map { ConfirmedRecord(device: $0.device, body: $0.body) }
        // The city's nodes numbered after those the rides on the empty store take (5 rides of
        // ~100 nodes each): numbered from 1 they were those rides' ids, and the city's links
        // through them joined points kilometres apart, a shortcut no straight-line bound
        // allows for (A*'s best route 2.9 % over networkx's on one query, 2026-11-28).
        var network = PathNetwork(nextNode: 1_000_000)
        let built = clock.measure { for ride in city { network.add(ride) } }
        let publicKm =
            network.links.filter { $0.value.devices.count >= 2 }
            .map { Geodesic.distance(network.nodes[$0.key.from]!, network.nodes[$0.key.to]!) }.reduce(0, +) / 1_000
        print(
            "city: \(city.count) rides; \(network.nodes.count) nodes, \(network.links.count) links, \(Int(publicKm)) km public; built in memory in \(built)"
        )
        var rng = SplitMix64(state: seed)
        let side = GridCity.side(kilometres: kilometres)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        let boxes = (0..<50).map { _ -> BoundingBox in
            let (x, y) = (uniform() * (side - 1_000), uniform() * (side - 1_000))
            let (sw, ne) = (GridCity.at(x, y), GridCity.at(x + 1_000, y + 1_000))
            return BoundingBox(west: sw.longitude, south: sw.latitude, east: ne.longitude, north: ne.latitude)
        }
        let pairs = (0..<queries).map { _ -> (Coordinate, Coordinate) in
            let (x, y) = (uniform() * side, uniform() * side)
            let d = 2_000 + uniform() * 6_000, angle = uniform() * 2 * .pi
            let (x2, y2) = (min(max(x + d * cos(angle), 0), side), min(max(y + d * sin(angle), 0), side))
            return (GridCity.at(x, y), GridCity.at(x2, y2))
        }
        var bestRoutes: [[[LinkKey]]] = []
        for (n, storage) in storages.enumerated() {
            let name = if case .sqlite = storage { "SQLite" } else { "PostgreSQL" }
            try await storage.withStore(logger: Logger(label: "bench")) { store in
                try await store.migrate()
                // The median of several rides each: one ride's time varied 1.5–6.5× between runs.
                let empty = try await appendRides(store, seeds: (0..<rides).map { seed &+ $0 }, clock: clock)
                let stored = try await clock.measure { try await storeWhole(network, in: store) }
                let full = try await appendRides(store, seeds: (0..<rides).map { seed &+ rides &+ $0 }, clock: clock)
                print(
                    "\(name): network stored in \(stored); one more ride stored and mapped (median of \(rides)): \(empty) on an empty store, "
                        + "\(full) on the city (ratio \(String(format: "%.2f", full / empty)); goal ≤ 2: \(full <= empty * 2 ? "met" : "NOT met"))"
                )
                var answers: [Duration] = []
                var features = 0
                for box in boxes {
                    answers.append(
                        try await clock.measure {
                            let edges = NetworkEdge.edges(of: try await store.networkLinks(in: box), minRiders: 2)
                            features = try NetworkEdge.geoJSONData(edges).count
                        })
                }
                print(
                    "\(name): 1 km² /v1/map/network answer p50 \(percentile(answers, 50)), p95 \(percentile(answers, 95)) (last \(features) bytes); "
                        + "goal p95 < 20 ms: \(percentile(answers, 95) < .milliseconds(20) ? "met" : "NOT met")")
                try await KeptGraphFigures.profile(store, name, pairs: Array(pairs.prefix(10)), clock: clock)
                try await KeptGraphFigures.firstSearch(store, name, pairs[0], clock: clock)
                try await KeptGraphFigures.afterRide(store, name, pairs[0], rideSeed: seed &+ 2 &* rides, clock: clock)
                if let postgres = store as? PostgresHubStore {
                    try await KeptGraphFigures.againstPgRouting(postgres, pairs: Array(pairs.prefix(10)), clock: clock)
                }
                var times: [Duration] = [], answered: [Duration] = [], overlapsOK = true, best: [[LinkKey]] = []
                var export = "query,score\n", links = "query,source,target,cost\n"
                let search = RouteSearch()
                for (i, (a, b)) in pairs.enumerated() {
                    let (time, routes, problem) = try await timedSearch(store, a, b, clock: clock)
                    times.append(time)
                    if problem == nil { answered.append(time) }
                    // A box over `RouteRule.maxLinks` is refused as the hub refuses it, and said.
                    if let problem { print("\(name): query \(i): \(problem)") }
                    for (x, r) in routes.enumerated() {
                        for s in routes[..<x] where r.overlap(with: s) > search.rule.maxOverlap { overlapsOK = false }
                    }
                    best.append(routes.first?.links.map(\.key) ?? [])
                    if n == 0, let top = routes.first {
                        // The exported network: the query's public links with their costs, and
                        // each end's joining points as edges from -1 and to -2 to their links'
                        // ends at their access cost and share of the link.
                        let box = search.rule.searchBox(a, b)
                        let graph = try await store.routingGraph(in: box, minRiders: search.minRiders)
                        export += "\(i),\(top.score)\n"
                        for l in try await store.networkLinks(in: box) where l.isPublic(minRiders: search.minRiders) {
                            links += "\(i),\(l.key.from),\(l.key.to),\(search.rule.cost(l))\n"
                        }
                        let rule = search.rule
                        let (starts, ends) = (try await graph.joiningPoints(near: a), try await graph.joiningPoints(near: b))
                        for (p, end) in starts.map({ ($0, "-1") }) + ends.map({ ($0, "-2") }) {
                            for node in [p.link.key.from, p.link.key.to] {
                                links += "\(i),\(end),\(node),\(rule.access(p) + rule.cost(from: p, to: node))\n"
                            }
                        }
                        for s in starts {
                            for e in ends where e.link.id == s.link.id {
                                links += "\(i),-1,-2,\(rule.access(s) + rule.access(e) + rule.cost(along: s, to: e))\n"
                            }
                        }
                    }
                }
                bestRoutes.append(best)
                print(
                    "\(name): route search (k = 3, 2–8 km, the kept graph built) p50 \(percentile(times, 50)), p95 \(percentile(times, 95)); "
                        + "the \(answered.count) answered (not refused): p95 \(answered.isEmpty ? .zero : percentile(answered, 95)); goal p95 < 30 ms: \(percentile(times, 95) < .milliseconds(30) ? "met" : "NOT met"); "
                        + "alternatives within the 70 % overlap bound: \(overlapsOK ? "met" : "NOT met")"
                )
                if n == 0 {
                    try export.write(toFile: exportDir + "/best.csv", atomically: true, encoding: .utf8)
                    try links.write(toFile: exportDir + "/links.csv", atomically: true, encoding: .utf8)
                }
            }
        }
        if bestRoutes.count == 2 {
            let same = zip(bestRoutes[0], bestRoutes[1]).filter { $0 == $1 }.count
            print("stores: the same best route on \(same) of \(queries) queries")
        }
    }

    /// One route search (k = 3) between `a` and `b` as the hub runs it, timed: its routes,
    /// or the problem that refused it.
    static func timedSearch(_ store: any HubStore, _ a: Coordinate, _ b: Coordinate, clock: ContinuousClock) async throws -> (
        time: Duration, routes: [Route], problem: RouteSearch.Problem?
    ) {
        let search = RouteSearch()
        var routes: [Route] = [], problem: RouteSearch.Problem?
        let time = try await clock.measure {
            do {
                let graph = try await store.routingGraph(in: search.rule.searchBox(a, b), minRiders: search.minRiders)
                routes = try await search.routes(from: a, to: b, k: 3, on: graph)
            } catch let refused as RouteSearch.Problem {
                problem = refused
            }
        }
        return (time, routes, problem)
    }

    /// Stores `network` (built in memory) through the store's own commit, in chunks.
    static func storeWhole(_ network: PathNetwork, in store: any HubStore) async throws {
        let cursor = try await store.networkCursor()
        var change = NetworkChange(network: network, from: cursor, appliedTo: cursor.applied)
        let (nodes, links) = (change.nodes, change.links)
        var from = cursor
        for start in stride(from: 0, to: max(nodes.count, links.count), by: 20_000) {
            change.from = from
            change.nodes = Array(nodes[min(start, nodes.count)..<min(start + 20_000, nodes.count)])
            change.links = Array(links[min(start, links.count)..<min(start + 20_000, links.count)])
            guard try await store.commit(change) else { throw CommitRefused() }
            from = change.to
        }
    }

    struct CommitRefused: Error {}

    /// Rides appended per measurement.
    static let rides: UInt64 = 5

    /// Stores one ride per seed (a 1.2 km street in the city's corner) as a device's
    /// confirmation and brings the map up to date, one after the other; the median time of both.
    static func appendRides(_ store: any HubStore, seeds: [UInt64], clock: ContinuousClock) async throws -> Duration {
        var times: [Duration] = []
        for seed in seeds {
            let device = "bench-rider-\(seed)"
            try await store.issueToken(device: device, token: "token-of-\(device)-0123456789")
            let ride = GridCity.rides(kilometres: 16, seed: seed)[Int(seed % 4)]
            times.append(
                try await clock.measure {
                    _ = try await store.put(device: device, records: [(.confirmation, "R\(seed)", ride.body)])
                    try await MapTiles.update(store)
                })
        }
        return percentile(times, 50)
    }

    static func percentile(_ values: [Duration], _ p: Int) -> Duration {
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, sorted.count * p / 100)]
    }
}
