import BikePathCore
import Foundation
import GRDB

/// The community path network on SQLite (`PathNetwork`; tables of migration
/// v4-path-network). One writer at a time, so the cursor check and the writes are atomic.
extension SQLiteHubStore {
    public func networkCursor() async throws -> NetworkCursor {
        try await pool.read { db in try Self.cursor(db) }
    }

    static func cursor(_ db: Database) throws -> NetworkCursor {
        let row = try Row.fetchOne(db, sql: "SELECT applied, next_node FROM map_network_state")
        return NetworkCursor(applied: row?["applied"] ?? 0, nextNode: row?["next_node"] ?? 1)
    }

    public func queuedRides(after sequence: Int64, limit: Int) async throws -> [QueuedRide] {
        try await queuedRides(where: "q.seq > ?", [sequence], limit: limit)
    }

    public func unmatchedRides(limit: Int) async throws -> [QueuedRide] {
        try await queuedRides(where: "q.streets_matched = 0 AND q.seq <= (SELECT applied FROM map_network_state)", [], limit: limit)
    }

    /// The queued rides `filter` selects, with their confirmations' bodies, oldest first.
    private func queuedRides(where filter: String, _ arguments: StatementArguments, limit: Int) async throws -> [QueuedRide] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT q.seq, q.id, r.device_id, r.body FROM map_network_queue q
                    JOIN records r ON r.device_id = q.device_id AND r.kind = 'confirmation' AND r.id = q.id
                    WHERE \(filter) ORDER BY q.seq LIMIT ?
                    """, arguments: arguments + [limit]
            ).map {
                QueuedRide(sequence: $0["seq"], id: $0["id"], record: ConfirmedRecord(device: $0["device_id"], body: $0["body"]))
            }
        }
    }

    public func networkNodes(tiles: [MapGrid.Cell]) async throws -> [NetworkNode] {
        guard !tiles.isEmpty else { return [] }
        return try await pool.read { db in
            // By cursor, as the links: no row is copied before it becomes a node.
            let rows = try Row.fetchCursor(
                db, sql: Self.select("id, lat, lon", from: "map_nodes", keys: ("tile_row", "tile_column"), in: tiles, then: "ORDER BY id"))
            var nodes: [NetworkNode] = []
            while let row = try rows.next() {
                nodes.append(NetworkNode(id: row[0], position: Coordinate(latitude: row[1], longitude: row[2])))
            }
            return nodes
        }
    }

    /// Statements cached (a 64-ride batch commits some 13,000 links, each prepared anew
    /// before), and a link's riders counted up by the rider pairs it did not hold yet, not
    /// recounted from `map_link_riders` for every link, as on PostgreSQL.
    public func commit(_ change: NetworkChange) async throws -> Bool {
        try await pool.write { db in
            guard try Self.cursor(db) == change.from else { return false }
            try db.execute(
                sql: "UPDATE map_network_state SET applied = ?, next_node = ?", arguments: [change.to.applied, change.to.nextNode])
            let node = try db.cachedStatement(sql: "INSERT INTO map_nodes VALUES (?, ?, ?, ?, ?)")
            for n in change.nodes {
                let tile = MapTiles.grid.cell(of: n.position)
                try node.execute(arguments: [n.id, n.position.latitude, n.position.longitude, tile.row, tile.column])
            }
            let link = try db.cachedStatement(
                sql: """
                    INSERT INTO map_links (source, target, from_lat, from_lon, to_lat, to_lon, length_m, trips, riders, last_day,
                        rated_optimal, rated_medium, rated_sufficient, rated_requires_maintenance, tile_row, tile_column)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (source, target) DO UPDATE SET trips = trips + excluded.trips,
                        last_day = CASE WHEN last_day IS NULL OR excluded.last_day > last_day THEN excluded.last_day ELSE last_day END,
                        rated_optimal = rated_optimal + excluded.rated_optimal, rated_medium = rated_medium + excluded.rated_medium,
                        rated_sufficient = rated_sufficient + excluded.rated_sufficient,
                        rated_requires_maintenance = rated_requires_maintenance + excluded.rated_requires_maintenance
                    RETURNING id
                    """)
            let rider = try db.cachedStatement(sql: "INSERT OR IGNORE INTO map_link_riders VALUES (?, ?)")
            let riders = try db.cachedStatement(sql: "UPDATE map_links SET riders = riders + ? WHERE id = ?")
            for l in change.links {
                let e = l.evidence, tile = l.tile
                let id = try Int64.fetchOne(
                    link,
                    arguments: [
                        l.key.from, l.key.to, l.from.latitude, l.from.longitude, l.to.latitude, l.to.longitude, l.lengthMeters,
                        e.trips, e.lastDay, e.ratings[0], e.ratings[1], e.ratings[2], e.ratings[3], tile.row, tile.column,
                    ])!
                var added = 0
                for device in e.devices.sorted() {
                    try rider.execute(arguments: [id, device])
                    added += db.changesCount
                }
                if added > 0 { try riders.execute(arguments: [added, id]) }
            }
            try Self.add(change.streets, db)
            if change.streetsMatched {
                try db.execute(
                    sql: "UPDATE map_network_queue SET streets_matched = 1 WHERE seq > ? AND seq <= ?",
                    arguments: [change.from.applied, change.to.applied])
            }
            return true
        }
    }

    public func commitStreetMatches(_ sequences: [Int64], evidence: [StreetIncrement]) async throws -> Bool {
        do {
            return try await pool.write { db in
                let mark = try db.cachedStatement(
                    sql: "UPDATE map_network_queue SET streets_matched = 1 WHERE seq = ? AND streets_matched = 0")
                for sequence in sequences {
                    try mark.execute(arguments: [sequence])
                    // Marked meanwhile: throwing rolls the transaction back.
                    guard db.changesCount == 1 else { throw StreetBacklogRace() }
                }
                try Self.add(evidence, db)
                return true
            }
        } catch is StreetBacklogRace {
            return false
        }
    }

    public func networkLinks(tiles: [MapGrid.Cell]) async throws -> [NetworkLink] {
        guard !tiles.isEmpty else { return [] }
        return try await pool.read { db in
            try Array(
                Row.fetchCursor(
                    db,
                    sql: Self.select(
                        NetworkLink.storedColumns, from: "map_links", keys: ("tile_row", "tile_column"), in: tiles, then: "ORDER BY id")
                ).map(Self.link))
        }
    }

    public func networkLinks(in box: BoundingBox) async throws -> [NetworkLink] {
        let tiles = Self.linkTiles(meeting: box)
        let links = try await pool.read { db in
            // A cursor decodes each row in place; `fetchAll` copied every row first, and the
            // copies' decoding was most of a box answer's time.
            try Array(
                Row.fetchCursor(
                    db, sql: "SELECT \(NetworkLink.storedColumns) FROM map_links WHERE \(tiles.sql) ORDER BY id", arguments: tiles.arguments
                ).map(Self.link))
        }
        return links.filter { $0.meets(box) }
    }

    public func routingGraph(in box: BoundingBox, minRiders: Int, maxLinks limit: Int) async throws -> any RoutingGraph {
        let version = try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT hard + (SELECT count(*) FROM grdb_migrations), soft FROM routing_version").map {
                RoutingVersion(hard: $0[0], soft: $0[1])
            } ?? RoutingVersion(hard: 0, soft: 0)
        }
        return try await routingCache.graph(minRiders: minRiders, version: version) { [self] in
            let community = try await pool.read { db in
                try Array(
                    Row.fetchCursor(
                        db, sql: "SELECT \(NetworkLink.storedColumns) FROM map_links WHERE riders >= ? ORDER BY id", arguments: [minRiders]
                    ).map(Self.link))
            }
            return KeptGraph(
                community: community, streets: try await streets(in: .world), evidence: try await streetTallies(in: .world),
                obstacles: try await corroboratedObstacles(), minRiders: minRiders)
        }
        .view(in: box, maxLinks: limit)
    }

    /// The condition on `map_links` that holds every link meeting `box` (and some near it).
    /// A link meeting the box has its midpoint within half a link of it: links are at most a
    /// few snapping distances long (`NetworkRule`), so 100 m around the box holds them. Row by
    /// row: `tile_row BETWEEN … AND tile_column BETWEEN …` walked the index through whole rows
    /// of tiles across the city; `IN` makes one short range per row.
    static func linkTiles(meeting box: BoundingBox) -> (sql: String, arguments: StatementArguments) {
        let range = MapTiles.range(of: box.widened(byMeters: 100))
        let rows = range.rows.map(String.init).joined(separator: ",")  // integers only
        return ("tile_row IN (\(rows)) AND tile_column BETWEEN ? AND ?", [range.columns.lowerBound, range.columns.upperBound])
    }

    /// A row of `NetworkLink.storedColumns`, read by position (no name lookups over the
    /// thousands of rows a box holds).
    static func link(_ row: Row) -> NetworkLink {
        NetworkLink(
            id: row[0], key: LinkKey(row[1], row[2]), from: Coordinate(latitude: row[3], longitude: row[4]),
            to: Coordinate(latitude: row[5], longitude: row[6]), trips: row[7], riders: row[8], lastDay: row[9],
            ratings: [row[10], row[11], row[12], row[13]], obstacles: LinkObstacles(count: row[14], confidence: row[15]))
    }
}
