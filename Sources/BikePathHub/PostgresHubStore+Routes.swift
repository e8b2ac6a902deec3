import BikePathCore
import Foundation
import Logging
import PostgresNIO

/// Routes on PostgreSQL: PostGIS finds where origin and destination join the network
/// (nearest-neighbour search on the GiST index) and pgRouting's Dijkstra runs on
/// `map_links` as it is stored, its `cost` column kept by `refreshCosts`.
extension PostgresHubStore {
    public func routingGraph(in box: BoundingBox, minRiders: Int) async throws -> any RoutingGraph {
        PgRoutingGraph(store: self, box: box, minRiders: minRiders)
    }

    /// Sets `cost` (`RouteRule.cost`) on the links `filter` selects, after their evidence or
    /// obstacles changed: the rule is Swift's, written once, and pgRouting reads its result.
    static func refreshCosts(_ conn: PostgresConnection, _ filter: PostgresQuery, logger: Logger) async throws {
        var query = PostgresQuery(unsafeSQL: "SELECT \(linkColumns) FROM map_links WHERE ")
        query.sql += filter.sql
        query.binds = filter.binds
        var ids: [Int64] = [], costs: [Double] = []
        for try await row in try await conn.query(query, logger: logger) {
            let link = try link(row)
            ids.append(link.id)
            costs.append(RouteRule().cost(link))
        }
        guard !ids.isEmpty else { return }
        try await conn.query("""
            UPDATE map_links l SET cost = u.c FROM unnest(\(ids)::bigint[], \(costs)::float8[]) AS u(id, c) WHERE l.id = u.id
            """, logger: logger)
    }
}

struct PgRoutingGraph: RoutingGraph {
    let store: PostgresHubStore
    let box: BoundingBox
    let minRiders: Int

    var envelope: String { "ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326)" }

    func nearestNode(to point: Coordinate) async throws -> NearestNode? {
        // The index orders by planar degrees, which stretch east–west away from the equator:
        // the 10 nearest so measured hold the nearest in metres, measured here.
        let candidates = try await store.links("""
            SELECT \(unescaped: PostgresHubStore.linkColumns) FROM map_links
            WHERE riders >= \(minRiders) AND geom && \(unescaped: envelope)
            ORDER BY geom <-> ST_SetSRID(ST_MakePoint(\(point.longitude), \(point.latitude)), 4326) LIMIT 10
            """)
        return NearestNode.among(candidates, to: point)
    }

    func cheapestPath(from: Int64, to: Int64, penalties: [Int64: Double]) async throws -> [NetworkLink]? {
        if from == to { return [] }
        // pgRouting takes its edges as SQL text: only numbers are written into it.
        let factor = penalties.isEmpty ? "1"
            : "CASE id " + penalties.sorted { $0.key < $1.key }.map { "WHEN \($0.key) THEN \($0.value)" }.joined(separator: " ") + " ELSE 1 END"
        let edges = """
            SELECT id, source, target, cost * \(factor) AS cost, cost * \(factor) AS reverse_cost FROM map_links
            WHERE riders >= \(minRiders) AND geom && \(envelope)
            """
        var order: [Int64] = []
        for try await edge in try await store.client.query("""
            SELECT edge FROM pgr_dijkstra(\(edges), \(from)::bigint, \(to)::bigint, directed => false) WHERE edge <> -1 ORDER BY path_seq
            """, logger: store.logger).decode(Int64.self) {
            order.append(edge)
        }
        guard !order.isEmpty else { return nil }
        let byID = Dictionary(uniqueKeysWithValues: try await store.links("""
            SELECT \(unescaped: PostgresHubStore.linkColumns) FROM map_links WHERE id = ANY(\(order)::bigint[])
            """).map { ($0.id, $0) })
        return order.compactMap { byID[$0] }
    }
}
