import BikePathCore
import Foundation
import Logging
import PostgresNIO

/// Routes on PostgreSQL: the public links and the streets read once into the kept graph
/// (`KeptGraph`, `RoutingCache`), as on SQLite. pgRouting's Dijkstra on `map_links` as
/// stored (its `cost` column kept by `refreshCosts`) stays for the benchmark's comparison.
extension PostgresHubStore {
    public func routingGraph(in box: BoundingBox, minRiders: Int, maxLinks limit: Int) async throws -> any RoutingGraph {
        var version = RoutingVersion(hard: 0, soft: 0)
        for try await (hard, soft) in try await client.query(
            "SELECT r.hard + (SELECT count(*) FROM hub_migrations), r.soft FROM routing_version r", logger: logger
        ).decode((Int64, Int64).self) {
            version = RoutingVersion(hard: hard, soft: soft)
        }
        // The kept graph, as on SQLite: one graph and one rule answer the same routes on both
        // stores (pgRouting's search on the stored links: `pgRoutingGraph`, measured beside it).
        return try await routingCache.graph(minRiders: minRiders, version: version) { [self] in
            let community = try await links(
                """
                SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links WHERE riders >= \(minRiders) ORDER BY id
                """)
            return KeptGraph(
                community: community, streets: try await streets(in: .world), evidence: try await streetTallies(in: .world),
                obstacles: try await corroboratedObstacles(), minRiders: minRiders)
        }
        .view(in: box, maxLinks: limit)
    }

    /// pgRouting's search over the community links in `box` as stored (no streets): PostGIS
    /// finds the joining points, `pgr_dijkstra` the path, each search building its graph from
    /// the edge query. Kept to measure beside the kept graph (bench/network.sh).
    public func pgRoutingGraph(in box: BoundingBox, minRiders: Int) -> any RoutingGraph {
        PgRoutingGraph(store: self, box: box, minRiders: minRiders)
    }

    /// Sets `cost` (`RouteRule.cost`) on the links `filter` selects, after their evidence or
    /// obstacles changed: the rule is Swift's, written once, and pgRouting reads its result.
    /// A link whose cost did not change is not written (a tile's remake reads thousands).
    static func refreshCosts(_ conn: PostgresConnection, _ filter: PostgresQuery, logger: Logger) async throws {
        var query = PostgresQuery(unsafeSQL: "SELECT \(NetworkLink.storedColumns) FROM map_links WHERE ")
        query.sql += filter.sql
        query.binds = filter.binds
        var ids: [Int64] = [], costs: [Double] = []
        for try await row in try await conn.query(query, logger: logger) {
            let link = try link(row)
            ids.append(link.id)
            costs.append(RouteRule().cost(link))
        }
        guard !ids.isEmpty else { return }
        try await conn.query(
            """
            UPDATE map_links l SET cost = u.c FROM unnest(\(PostgresNumbers(ids))::bigint[], \(PostgresNumbers(costs))::float8[]) AS u(id, c)
            WHERE l.id = u.id AND l.cost IS DISTINCT FROM u.c
            """, logger: logger)
    }
}

struct PgRoutingGraph: RoutingGraph {
    let store: PostgresHubStore
    let box: BoundingBox
    let minRiders: Int

    var envelope: String { "ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)" }

    /// The public links nearest `point` in the box: the index orders by planar degrees,
    /// which stretch east–west away from the equator, so `count` of them are read and
    /// measured here.
    private func nearestLinks(_ point: Coordinate, count: Int) async throws -> [NetworkLink] {
        try await store.links(
            """
            SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links
            WHERE riders >= \(minRiders) AND geom && \(unescaped: envelope)
            ORDER BY geom <-> ST_SetSRID(ST_MakePoint(\(point.longitude), \(point.latitude)), 4326) LIMIT \(count)
            """)
    }

    func joiningPoints(near point: Coordinate) async throws -> [JoiningPoint] {
        JoiningPoints.among(
            try await nearestLinks(point, count: JoiningPoints.nearestLinks), near: point, reachMeters: RouteRule().reachMeters)
    }

    func nearestPoint(to point: Coordinate) async throws -> JoiningPoint? {
        JoiningPoints.nearest(try await nearestLinks(point, count: 10), to: point)
    }

    func cheapestPath(from starts: [JoiningPoint], to ends: [JoiningPoint], penalties: [Int64: Double]) async throws -> JoinedPath? {
        let rule = RouteRule()
        func penalty(_ p: JoiningPoint) -> Double { penalties[p.link.id] ?? 1 }
        // pgRouting takes its edges as SQL text: only numbers are written into it. The ends
        // are two virtual nodes (-1, -2); each joining point is a virtual edge to each end
        // of its link, costing its access and its share of the link (ids `Virtual`), and a
        // start and an end on one link are joined by an edge along it. The same graph as
        // `LoadedGraph`'s, in the edge query: `pgr_withPoints` would split the links too,
        // but charges no access and takes its points as a second query.
        // Penalties as a VALUES list joined on the id (a hash join): a CASE of hundreds of
        // arms evaluated on every edge took seconds on a city.
        let penalized =
            penalties.isEmpty
            ? "(VALUES (0::bigint, 1::float8))"
            : "(VALUES " + penalties.sorted { $0.key < $1.key }.map { "(\($0.key)::bigint, \($0.value)::float8)" }.joined(separator: ", ")
                + ")"
        func edge(_ id: Int64, _ source: Int64, _ target: Int64, _ cost: Double) -> String {
            "SELECT \(id), \(source), \(target), \(cost), \(cost)"
        }
        var access: [String] = []
        for (i, s) in starts.enumerated() {
            for (side, node) in [s.link.key.from, s.link.key.to].enumerated() {
                let cost = rule.access(s) + rule.cost(from: s, to: node, penalty: penalty(s))
                access.append(edge(Virtual.start(i, side), -1, node, cost))
            }
            for (j, e) in ends.enumerated() where e.link.id == s.link.id {
                let cost = rule.access(s) + rule.access(e) + rule.cost(along: s, to: e, penalty: penalty(s))
                access.append(edge(Virtual.along(i, j), -1, -2, cost))
            }
        }
        for (j, e) in ends.enumerated() {
            for (side, node) in [e.link.key.from, e.link.key.to].enumerated() {
                let cost = rule.access(e) + rule.cost(from: e, to: node, penalty: penalty(e))
                access.append(edge(Virtual.end(j, side), node, -2, cost))
            }
        }
        let edges = """
            SELECT l.id, l.source, l.target, l.cost * coalesce(p.f, 1) AS cost, l.cost * coalesce(p.f, 1) AS reverse_cost
            FROM map_links l LEFT JOIN \(penalized) AS p(id, f) ON p.id = l.id
            WHERE l.riders >= \(minRiders) AND l.geom && \(envelope)
            UNION ALL \(access.joined(separator: " UNION ALL "))
            """
        var order: [Int64] = []
        for try await edge in try await store.client.query(
            """
            SELECT edge FROM pgr_dijkstra(\(edges), -1::bigint, -2::bigint, directed => false) WHERE edge <> -1 ORDER BY path_seq
            """, logger: store.logger
        ).decode(Int64.self) {
            order.append(edge)
        }
        guard let first = order.first, let last = order.last else { return nil }
        if let (i, j) = Virtual.along(first) { return JoinedPath(start: starts[i], leaves: nil, links: [], end: ends[j]) }
        guard let (i, side) = Virtual.start(first), let (j, _) = Virtual.end(last) else { return nil }
        let real = order.filter { $0 > 0 }
        let byID = Dictionary(
            uniqueKeysWithValues: try await store.links(
                """
                SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links WHERE id = ANY(\(real)::bigint[])
                """
            ).map { ($0.id, $0) })
        let leaves = side == 0 ? starts[i].link.key.from : starts[i].link.key.to
        return JoinedPath(start: starts[i], leaves: leaves, links: real.compactMap { byID[$0] }, end: ends[j])
    }

    /// The virtual edges' ids, all negative (links' are positive; pgRouting's -1 marks a
    /// path's last row): start i's edge to its link's `from` (side 0) or `to` (side 1)
    /// from -10, end j's from -100,000, start i along the link to end j from -200,000.
    enum Virtual {
        static let (starts, ends, along) = (Int64(-10), Int64(-100_000), Int64(-200_000))
        static let width = Int64(1_000)  // more than `JoiningPoints.limit` × 2

        static func start(_ i: Int, _ side: Int) -> Int64 { starts - Int64(2 * i + side) }
        static func end(_ j: Int, _ side: Int) -> Int64 { ends - Int64(2 * j + side) }
        static func along(_ i: Int, _ j: Int) -> Int64 { along - Int64(i) * width - Int64(j) }

        static func start(_ id: Int64) -> (Int, Int)? { decode(starts - id) }
        static func end(_ id: Int64) -> (Int, Int)? { decode(ends - id) }
        static func along(_ id: Int64) -> (Int, Int)? {
            let n = along - id
            return n >= 0 && n < width * width ? (Int(n / width), Int(n % width)) : nil
        }
        private static func decode(_ n: Int64) -> (Int, Int)? { n >= 0 && n < width ? (Int(n / 2), Int(n % 2)) : nil }
    }
}
