import BikePathCore
import Foundation
import Logging
import PostgresNIO

/// Routes on PostgreSQL: PostGIS finds where origin and destination join the network
/// (nearest-neighbour search on the GiST index) and pgRouting's Dijkstra runs on
/// `map_links` as it is stored, its `cost` column kept by `refreshCosts`.
extension PostgresHubStore {
    public func routingGraph(in box: BoundingBox, minRiders: Int, maxLinks limit: Int) async throws -> any RoutingGraph {
        // Counted on the GiST index before pgRouting reads a link: a refused search costs a count.
        let graph = PgRoutingGraph(store: self, box: box, minRiders: minRiders)
        var count = 0
        for try await n in try await client.query(
            """
            SELECT count(*) FROM (SELECT 1 FROM map_links WHERE riders >= \(minRiders) AND geom && \(unescaped: graph.envelope) LIMIT \(limit + 1)) s
            """, logger: logger
        ).decode(Int.self) {
            count = n
        }
        guard count <= limit else { throw RouteSearch.Problem.tooManyLinks(limit: limit) }
        return graph
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

    func joiningNodes(near point: Coordinate) async throws -> [NearestNode] {
        JoiningNodes.among(
            try await nearestLinks(point, count: JoiningNodes.nearestLinks), near: point, reachMeters: RouteRule().reachMeters)
    }

    func nearestNode(to point: Coordinate) async throws -> NearestNode? {
        JoiningNodes.nearest(try await nearestLinks(point, count: 10), to: point)
    }

    func cheapestPath(from starts: [NearestNode], to ends: [NearestNode], penalties: [Int64: Double]) async throws -> JoinedPath? {
        let rule = RouteRule()
        // pgRouting takes its edges as SQL text: only numbers are written into it. The ends
        // are two virtual nodes (-1, -2) joined to their nodes at their access cost by
        // virtual edges (ids from -10 down; pgRouting's own -1 marks a path's last row).
        // Penalties as a VALUES list joined on the id (a hash join): a CASE of hundreds of
        // arms evaluated on every edge took seconds on a city.
        let penalized =
            penalties.isEmpty
            ? "(VALUES (0::bigint, 1::float8))"
            : "(VALUES " + penalties.sorted { $0.key < $1.key }.map { "(\($0.key)::bigint, \($0.value)::float8)" }.joined(separator: ", ")
                + ")"
        let access =
            starts.enumerated().map { i, s in "SELECT \(-10 - i), -1, \(s.node), \(rule.access(s)), \(rule.access(s))" }
            + ends.enumerated().map { i, e in "SELECT \(-2_000 - i), \(e.node), -2, \(rule.access(e)), \(rule.access(e))" }
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
        guard let first = order.first, let last = order.last, first < 0, last < 0 else { return nil }
        let (start, end) = (starts[Int(-10 - first)], ends[Int(-2_000 - last)])
        let real = order.filter { $0 > 0 }
        let byID = Dictionary(
            uniqueKeysWithValues: try await store.links(
                """
                SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links WHERE id = ANY(\(real)::bigint[])
                """
            ).map { ($0.id, $0) })
        return JoinedPath(start: start, links: real.compactMap { byID[$0] }, end: end)
    }
}
