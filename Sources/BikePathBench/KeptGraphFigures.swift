import BikePathCore
import BikePathHub
import Foundation

/// The route search's parts, measured beside the searches of bench/network.sh: where a
/// search's time went when each built its own graph, what the kept graph (`KeptGraph`)
/// costs to build and hold, and pgRouting's search on the same store.
enum KeptGraphFigures {
    /// Per search without the kept graph: the box's links and streets read from the store,
    /// `StreetLinks` and the graph made, then the search (k = 3; the contraction for its
    /// ends made by its first pass, then the passes). Medians.
    static func profile(_ store: any HubStore, _ name: String, pairs: [(Coordinate, Coordinate)], clock: ContinuousClock) async throws {
        let search = RouteSearch()
        var read: [Duration] = [], made: [Duration] = [], searched: [Duration] = []
        for (a, b) in pairs {
            let box = search.rule.searchBox(a, b)
            var community: [NetworkLink] = [], streets: [StreetEdge] = []
            read.append(
                try await clock.measure {
                    community = try await store.networkLinks(in: box).filter { $0.isPublic(minRiders: search.minRiders) }
                    streets = try await store.streets(in: box)
                })
            var graph = LoadedGraph(links: [])
            made.append(clock.measure { graph = LoadedGraph(links: StreetLinks.links(community: community, streets: streets)) })
            searched.append(await clock.measure { _ = try? await search.routes(from: a, to: b, k: 3, on: graph) })
        }
        let p50 = { (values: [Duration]) in NetworkBenchmark.percentile(values, 50) }
        print(
            "\(name): a search building its own graph, medians of \(pairs.count): store read \(p50(read)), "
                + "StreetLinks and graph \(p50(made)), contraction and search \(p50(searched))")
    }

    /// The first search after a change: the kept graph read and built, its size and the
    /// process's resident memory before and after (what the graph holds, and what the read left).
    static func firstSearch(_ store: any HubStore, _ name: String, _ pair: (Coordinate, Coordinate), clock: ContinuousClock) async throws {
        let before = residentMiB()
        let (time, _, _) = try await NetworkBenchmark.timedSearch(store, pair.0, pair.1, clock: clock)
        let search = RouteSearch()
        let graph = try await store.routingGraph(in: search.rule.searchBox(pair.0, pair.1), minRiders: search.minRiders)
        let size = (graph as? KeptGraph.View)?.graph.size
        print(
            "\(name): first search after a change (the kept graph read and built) \(time); graph: \(size?.links ?? 0) links, "
                + "\(size?.chains ?? 0) chains, \(size?.junctions ?? 0) junctions; resident \(before) → \(residentMiB()) MiB")
    }

    /// One more ride after the graph was built (a soft change): the next search, answered on
    /// the last graph while it starts the rebuild; the rebuild's time in the background (to
    /// `RoutingCache.settled`) and the builds it started; the search after it, on the new graph.
    static func afterRide(
        _ store: any HubStore, _ name: String, _ pair: (Coordinate, Coordinate), rideSeed: UInt64, clock: ContinuousClock
    ) async throws {
        guard let cache = (store as? SQLiteHubStore)?.routingCache ?? (store as? PostgresHubStore)?.routingCache else { return }
        _ = try await NetworkBenchmark.timedSearch(store, pair.0, pair.1, clock: clock)
        let builds = cache.buildsStarted
        _ = try await NetworkBenchmark.appendRides(store, seeds: [rideSeed], clock: clock)
        let next = try await NetworkBenchmark.timedSearch(store, pair.0, pair.1, clock: clock).time
        let rebuild = await clock.measure { await cache.settled() }
        let after = try await NetworkBenchmark.timedSearch(store, pair.0, pair.1, clock: clock).time
        print(
            "\(name): one more ride after the graph was built: the next search \(next) (the last graph), the rebuild in the "
                + "background \(rebuild) more (\(cache.buildsStarted - builds) started), the search after it \(after)")
    }

    /// pgRouting's search (`pgr_dijkstra` on the links in the box, joining points by PostGIS)
    /// against the kept graph's, the same queries, k = 3: p95 each and their ratio.
    static func againstPgRouting(_ store: PostgresHubStore, pairs: [(Coordinate, Coordinate)], clock: ContinuousClock) async throws {
        let search = RouteSearch()
        var pg: [Duration] = [], kept: [Duration] = []
        for (a, b) in pairs {
            let box = search.rule.searchBox(a, b)
            pg.append(
                await clock.measure {
                    _ = try? await search.routes(from: a, to: b, k: 3, on: store.pgRoutingGraph(in: box, minRiders: search.minRiders))
                })
            kept.append(try await NetworkBenchmark.timedSearch(store, a, b, clock: clock).time)
        }
        let (p, k) = (NetworkBenchmark.percentile(pg, 95), NetworkBenchmark.percentile(kept, 95))
        print(
            "PostgreSQL: route search p95 over \(pairs.count): pgRouting \(p), kept graph \(k) "
                + "(pgRouting / kept: \(String(format: "%.0f", p / k)))")
    }

    /// The process's resident set (VmRSS of /proc/self/status), MiB; 0 where unreadable.
    static func residentMiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kib / 1_024
    }
}
