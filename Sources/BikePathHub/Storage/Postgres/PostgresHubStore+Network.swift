import BikePathCore
import Foundation
import PostgresNIO

/// The community path network on PostgreSQL (`PathNetwork`; tables of migration
/// v3-path-network). Arrays go in through `unnest`, one statement per table.
extension PostgresHubStore {
    public func networkCursor() async throws -> NetworkCursor {
        for try await (applied, next) in try await client.query("SELECT applied, next_node FROM map_network_state", logger: logger)
            .decode((Int64, Int64).self)
        {
            return NetworkCursor(applied: applied, nextNode: next)
        }
        return NetworkCursor(applied: 0, nextNode: 1)
    }

    public func queuedRides(after sequence: Int64, limit: Int) async throws -> [QueuedRide] {
        try await queuedRides(where: "q.seq > \(sequence)", limit: limit)
    }

    public func unmatchedRides(limit: Int) async throws -> [QueuedRide] {
        try await queuedRides(where: "NOT q.streets_matched AND q.seq <= (SELECT applied FROM map_network_state)", limit: limit)
    }

    /// The queued rides `filter` selects, with their confirmations' bodies, oldest first.
    private func queuedRides(where filter: PostgresQuery, limit: Int) async throws -> [QueuedRide] {
        var query = PostgresQuery(
            unsafeSQL: """
                SELECT q.seq, q.id, r.device_id, r.body FROM map_network_queue q
                JOIN records r ON r.device_id = q.device_id AND r.kind = 'confirmation' AND r.id = q.id WHERE 
                """)
        query.sql += filter.sql + " ORDER BY q.seq LIMIT \(limit)"
        query.binds = filter.binds
        var out: [QueuedRide] = []
        for try await (seq, id, device, body) in try await client.query(query, logger: logger).decode((Int64, String, String, Data).self) {
            out.append(QueuedRide(sequence: seq, id: id, record: ConfirmedRecord(device: device, body: body)))
        }
        return out
    }

    public func commitStreetMatches(_ sequences: [Int64], evidence: [StreetIncrement]) async throws -> Bool {
        do {
            return try await client.withTransaction(logger: logger) { conn in
                let marked = try await conn.query(
                    """
                    UPDATE map_network_queue SET streets_matched = true
                    WHERE seq = ANY(\(PostgresNumbers(sequences))::bigint[]) AND NOT streets_matched RETURNING seq
                    """, logger: logger
                ).collect()
                // Marked meanwhile: throwing rolls the transaction back.
                guard marked.count == sequences.count else { throw StreetBacklogRace() }
                try await Self.add(evidence, conn, logger: logger)
                return true
            }
        } catch let e as PostgresTransactionError where e.closureError is StreetBacklogRace {
            return false
        }
    }

    public func networkNodes(tiles: [MapGrid.Cell]) async throws -> [NetworkNode] {
        guard !tiles.isEmpty else { return [] }
        var out: [NetworkNode] = []
        for try await (id, lat, lon) in try await client.query(
            """
            SELECT n.id, n.lat, n.lon FROM map_nodes n JOIN unnest(\(tiles.map(\.row))::int[], \(tiles.map(\.column))::int[]) AS u(r, c)
            ON n.tile_row = u.r AND n.tile_column = u.c ORDER BY n.id
            """, logger: logger
        ).decode((Int64, Double, Double).self) {
            out.append(NetworkNode(id: id, position: Coordinate(latitude: lat, longitude: lon)))
        }
        return out
    }

    public func claimNetwork(holder: String, for lease: Duration) async throws -> Bool {
        let seconds = Double(lease.components.seconds)
        return
            !(try await client.query(
                """
                UPDATE map_network_state SET lease_holder = \(holder), leased_until = now() + make_interval(secs => \(seconds))
                WHERE lease_holder IS NULL OR lease_holder = \(holder) OR leased_until < now() RETURNING 1
                """, logger: logger
            ).collect()).isEmpty
    }

    public func releaseNetwork(holder: String) async throws {
        try await client.query(
            "UPDATE map_network_state SET lease_holder = NULL, leased_until = NULL WHERE lease_holder = \(holder)", logger: logger)
    }

    public func commit(_ change: NetworkChange) async throws -> Bool {
        let (from, to) = (change.from, change.to)
        return try await client.withTransaction(logger: logger) { conn in
            // Under READ COMMITTED a second replica's UPDATE waits for the first to commit,
            // then finds the cursor moved and matches no row: it writes nothing.
            let moved = try await conn.query(
                """
                UPDATE map_network_state SET applied = \(to.applied), next_node = \(to.nextNode)
                WHERE applied = \(from.applied) AND next_node = \(from.nextNode) RETURNING applied
                """, logger: logger
            ).collect()
            guard !moved.isEmpty else { return false }
            try await Self.insert(change.nodes, conn, logger: logger)
            try await Self.upsert(change.links, conn, logger: logger)
            try await Self.add(change.streets, conn, logger: logger)
            if change.streetsMatched {
                try await conn.query(
                    "UPDATE map_network_queue SET streets_matched = true WHERE seq > \(from.applied) AND seq <= \(to.applied)",
                    logger: logger)
            }
            return true
        }
    }

    private static func insert(_ nodes: [NetworkNode], _ conn: PostgresConnection, logger: Logger) async throws {
        let tiles = nodes.map { MapTiles.grid.cell(of: $0.position) }
        try await conn.query(
            """
            INSERT INTO map_nodes SELECT i, la, lo, r, c, ST_SetSRID(ST_MakePoint(lo, la), 4326)
            FROM unnest(\(PostgresNumbers(nodes.map(\.id)))::bigint[], \(PostgresNumbers(nodes.map(\.position.latitude)))::float8[],
                        \(PostgresNumbers(nodes.map(\.position.longitude)))::float8[], \(PostgresNumbers(tiles.map(\.row)))::int[],
                        \(PostgresNumbers(tiles.map(\.column)))::int[]) AS u(i, la, lo, r, c)
            """, logger: logger)
    }

    /// Three statements, each link row written at most twice: the links' sums (their rows
    /// come back), the rider pairs not held yet (their count per link comes back), then
    /// riders and route cost for the links where either changed. The riders had been
    /// recounted from `map_link_riders` for every link of the batch (a second update of each
    /// row, 88-110 ms of a 64-ride batch's ~250 ms in PostgreSQL) and the costs read back
    /// and updated in a third. No other writer changes these rows between the statements:
    /// the upsert holds their row locks until the commit.
    private static func upsert(_ links: [NetworkChange.LinkIncrement], _ conn: PostgresConnection, logger: Logger) async throws {
        let e = links.map(\.evidence)
        let sources = links.map(\.key.from), targets = links.map(\.key.to)
        var stored: [LinkKey: (link: NetworkLink, cost: Double)] = [:]
        stored.reserveCapacity(links.count)
        for try await row in try await conn.query(
            """
            INSERT INTO map_links (source, target, from_lat, from_lon, to_lat, to_lon, length_m, trips, riders, last_day,
                rated_optimal, rated_medium, rated_sufficient, rated_requires_maintenance, tile_row, tile_column, geom)
            SELECT s, t, fa, fo, ta, tn, len, n, 0, NULLIF(d, -1), r0, r1, r2, r3, tr, tc,
                ST_SetSRID(ST_MakeLine(ST_MakePoint(fo, fa), ST_MakePoint(tn, ta)), 4326)
            FROM unnest(\(PostgresNumbers(sources))::bigint[], \(PostgresNumbers(targets))::bigint[],
                        \(PostgresNumbers(links.map(\.from.latitude)))::float8[], \(PostgresNumbers(links.map(\.from.longitude)))::float8[],
                        \(PostgresNumbers(links.map(\.to.latitude)))::float8[], \(PostgresNumbers(links.map(\.to.longitude)))::float8[],
                        \(PostgresNumbers(links.map(\.lengthMeters)))::float8[], \(PostgresNumbers(e.map(\.trips)))::int[],
                        \(PostgresNumbers(e.map { $0.lastDay ?? -1 }))::int[], \(PostgresNumbers(e.map { $0.ratings[0] }))::int[],
                        \(PostgresNumbers(e.map { $0.ratings[1] }))::int[], \(PostgresNumbers(e.map { $0.ratings[2] }))::int[],
                        \(PostgresNumbers(e.map { $0.ratings[3] }))::int[], \(PostgresNumbers(links.map(\.tile.row)))::int[],
                        \(PostgresNumbers(links.map(\.tile.column)))::int[])
                AS u(s, t, fa, fo, ta, tn, len, n, d, r0, r1, r2, r3, tr, tc)
            ON CONFLICT (source, target) DO UPDATE SET trips = map_links.trips + excluded.trips,
                last_day = GREATEST(map_links.last_day, excluded.last_day),
                rated_optimal = map_links.rated_optimal + excluded.rated_optimal,
                rated_medium = map_links.rated_medium + excluded.rated_medium,
                rated_sufficient = map_links.rated_sufficient + excluded.rated_sufficient,
                rated_requires_maintenance = map_links.rated_requires_maintenance + excluded.rated_requires_maintenance
            RETURNING \(unescaped: NetworkLink.storedColumns), cost
            """, logger: logger
        ) {
            let columns = row.makeRandomAccess()
            let link = try link(columns)
            stored[link.key] = (link, try columns[16].decode(Double.self))
        }
        var pairLinks: [Int64] = [], pairDevices: [String] = []
        for l in links {
            guard let id = stored[l.key]?.link.id else { continue }
            for device in l.evidence.devices.sorted() {
                pairLinks.append(id)
                pairDevices.append(device)
            }
        }
        var added: [Int64: Int] = [:]
        for try await (link, count) in try await conn.query(
            """
            WITH added AS (
                INSERT INTO map_link_riders SELECT * FROM unnest(\(PostgresNumbers(pairLinks))::bigint[], \(pairDevices)::text[])
                ON CONFLICT DO NOTHING RETURNING link
            ) SELECT link, count(*) FROM added GROUP BY link
            """, logger: logger
        ).decode((Int64, Int).self) {
            added[link] = count
        }
        var ids: [Int64] = [], riders: [Int] = [], costs: [Double] = []
        for (var link, cost) in stored.values {
            link.riders += added[link.id] ?? 0
            let now = RouteRule().cost(link)
            guard added[link.id] != nil || now != cost else { continue }
            ids.append(link.id)
            riders.append(link.riders)
            costs.append(now)
        }
        guard !ids.isEmpty else { return }
        try await conn.query(
            """
            UPDATE map_links l SET riders = u.r, cost = u.c
            FROM unnest(\(PostgresNumbers(ids))::bigint[], \(PostgresNumbers(riders))::int[], \(PostgresNumbers(costs))::float8[]) AS u(id, r, c)
            WHERE l.id = u.id
            """, logger: logger)
    }

    public func networkLinks(tiles: [MapGrid.Cell]) async throws -> [NetworkLink] {
        guard !tiles.isEmpty else { return [] }
        return try await links(
            """
            SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links l JOIN unnest(\(tiles.map(\.row))::int[], \(tiles.map(\.column))::int[]) AS u(r, c)
            ON l.tile_row = u.r AND l.tile_column = u.c ORDER BY id
            """)
    }

    public func networkLinks(in box: BoundingBox) async throws -> [NetworkLink] {
        try await links(
            """
            SELECT \(unescaped: NetworkLink.storedColumns) FROM map_links
            WHERE geom && ST_MakeEnvelope(\(box.west), \(box.south), \(box.east), \(box.north), 4326) ORDER BY id
            """)
    }

    func links(_ query: PostgresQuery) async throws -> [NetworkLink] {
        var out: [NetworkLink] = []
        for try await row in try await client.query(query, logger: logger) { out.append(try Self.link(row)) }
        return out
    }

    /// A row of `NetworkLink.storedColumns`.
    static func link(_ row: PostgresRow) throws -> NetworkLink { try link(row.makeRandomAccess()) }

    static func link(_ c: PostgresRandomAccessRow) throws -> NetworkLink {
        let ratings = try (10...13).map { try c[$0].decode(Int.self) }
        return NetworkLink(
            id: try c[0].decode(Int64.self), key: LinkKey(try c[1].decode(Int64.self), try c[2].decode(Int64.self)),
            from: Coordinate(latitude: try c[3].decode(Double.self), longitude: try c[4].decode(Double.self)),
            to: Coordinate(latitude: try c[5].decode(Double.self), longitude: try c[6].decode(Double.self)),
            trips: try c[7].decode(Int.self), riders: try c[8].decode(Int.self), lastDay: try c[9].decode(Int?.self),
            ratings: ratings, obstacles: LinkObstacles(count: try c[14].decode(Int.self), confidence: try c[15].decode(Double.self)))
    }
}

/// A migration needs a PostgreSQL extension the server does not have.
public struct MissingExtension: Error, Equatable, CustomStringConvertible {
    public var name: String
    public var package: String
    public var migration: String
    public var description: String {
        "the database server has no \(name) extension, which migration \(migration) needs: install it on the database host "
            + "(Debian: apt-get install \(package)), then run `bikepath-hub migrate` again"
    }
}
