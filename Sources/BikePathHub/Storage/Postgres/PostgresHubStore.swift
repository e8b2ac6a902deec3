import BikePathAPI
import BikePathCore
import Foundation
import Logging
import NIOCore
import PostgresNIO

/// The hub on PostgreSQL (`--database postgres://…`): for a city, and for several
/// stateless hub processes on one database. Idempotence is the database's: a record
/// goes in with `INSERT … ON CONFLICT DO NOTHING` on the key (device, kind, id), so
/// two replicas storing the same record at once leave one row and both answer from it.
///
/// The client's connection pool must run while the store is used: `HubStorage.withStore`
/// runs it for the duration of its body.
public final class PostgresHubStore: HubStore {
    let client: PostgresClient
    let logger: Logger
    /// The kept routing graph: read once per routing version, shared by searches.
    public let routingCache = RoutingCache()

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Bodies stored in the pre-release camelCase keys rewritten in today's snake_case
    /// (`SnakeCaseBodies`), a batch of rows at a time, in the step's transaction.
    static func rewriteBodiesInSnakeCase(_ conn: PostgresConnection, _ logger: Logger) async throws {
        var tally = SnakeCaseBodies.Tally()
        var after = ("", "", "")
        while true {
            var rows: [(String, String, String, Data)] = []
            for try await row in try await conn.query(
                """
                SELECT device_id, kind, id, body FROM records WHERE (device_id, kind, id) > (\(after.0), \(after.1), \(after.2))
                ORDER BY device_id, kind, id LIMIT \(SnakeCaseBodies.batch)
                """, logger: logger
            ).decode((String, String, String, Data).self) {
                rows.append(row)
            }
            for (device, kind, id, body) in rows {
                let outcome = SnakeCaseBodies.reencoded(kind: kind, body: body)
                tally.add(outcome)
                if case .rewritten(let body, let sha256) = outcome {
                    try await conn.query(
                        """
                        UPDATE records SET body = \(ByteBuffer(bytes: body)), sha256 = \(sha256)
                        WHERE device_id = \(device) AND kind = \(kind) AND id = \(id)
                        """, logger: logger)
                }
                after = (device, kind, id)
            }
            if rows.count < SnakeCaseBodies.batch { break }
        }
        tally.log("v11-snake-case-bodies", logger)
    }

    /// Rows bound per bulk INSERT (streets, places): 13 arrays of 5,000 stay far below the
    /// protocol's 1 GB message, and a city's import is a few dozen round trips, not one a row.
    static let rowsPerStatement = 5_000

    /// Any fixed number: replicas starting together take turns migrating.
    static let migrationLock: Int64 = 0x6269_6b65_7061_7468

    public func migrate() async throws {
        try await client.withTransaction(logger: logger) { conn in
            try await conn.query("SELECT pg_advisory_xact_lock(\(Self.migrationLock))", logger: logger)
            try await conn.query(
                """
                CREATE TABLE IF NOT EXISTS hub_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied = Set<String>()
            for try await version in try await conn.query("SELECT version FROM hub_migrations", logger: logger).decode(String.self) {
                applied.insert(version)
            }
            for step in HubSchema.steps where !applied.contains(step.name) {
                // Applied by an earlier build under its former name: recorded under its own
                // too. The former row stays, so that a replica of that build still starting
                // finds its schema migrated (the steps since change no PostgreSQL table).
                if let former = step.formerly[.postgres], applied.contains(former) {
                    try await conn.query("INSERT INTO hub_migrations (version) VALUES (\(step.name))", logger: logger)
                    continue
                }
                for needed in step.extensions {
                    let rows = try await conn.query(
                        "SELECT count(*) FROM pg_available_extensions WHERE name = \(needed.name)", logger: logger
                    )
                    .collect()
                    if try rows.first?.decode(Int.self) ?? 0 == 0 {
                        throw MissingExtension(name: needed.name, package: needed.package, migration: step.name)
                    }
                }
                for statement in step.postgres { try await conn.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await step.postgresProgram?(conn, logger)
                try await conn.query("INSERT INTO hub_migrations (version) VALUES (\(step.name))", logger: logger)
                logger.notice("database migrated to \(step.name)")
            }
        }
    }

    /// In the order they apply; the names an earlier build recorded for them left out; any
    /// this build does not know, last.
    public func appliedMigrations() async throws -> [String] {
        let applied = try await values("SELECT version FROM hub_migrations ORDER BY version", as: String.self)
        let known = HubSchema.steps.map(\.name), former = HubSchema.formerNames(.postgres)
        return known.filter(applied.contains) + applied.filter { !known.contains($0) && !former.contains($0) }
    }

    /// Two statements per batch whatever its size: one multi-row insert that skips held
    /// keys and names the rows it added, then the hashes of the held ones.
    public func put(device: String, records: [StorableRecord]) async throws -> [RecordResult] {
        guard !records.isEmpty else { return [] }
        let kinds = records.map(\.kind.rawValue), ids = records.map(\.id)
        let hashes = records.map { HubHash.sha256Hex($0.canonical) }
        let bodies = records.map { ByteBuffer(bytes: $0.canonical) }
        // No transaction: the insert is one statement, atomic alone, and the select after it
        // only reads rows already committed (a conflicting insert in flight is waited for).
        // BEGIN and COMMIT were two of an upload's four round trips to the database.
        return try await client.withConnection { conn in
            var created = Set<String>()
            for try await (kind, id) in try await conn.query(
                """
                INSERT INTO records (device_id, kind, id, sha256, body)
                SELECT \(device), k, i, h, b FROM unnest(\(kinds)::text[], \(ids)::text[], \(hashes)::text[], \(bodies)::bytea[]) AS u(k, i, h, b)
                ON CONFLICT (device_id, kind, id) DO NOTHING RETURNING kind, id
                """, logger: logger
            ).decode((String, String).self) {
                created.insert(kind + "/" + id)
            }
            var held: [String: String] = [:]
            if created.count < records.count {
                // Held already (perhaps committed by another replica a moment ago): answer from those rows.
                for try await (kind, id, sha) in try await conn.query(
                    """
                    SELECT r.kind, r.id, r.sha256 FROM records r JOIN unnest(\(kinds)::text[], \(ids)::text[]) AS u(k, i)
                    ON r.kind = u.k AND r.id = u.i WHERE r.device_id = \(device)
                    """, logger: logger
                ).decode((String, String, String).self) where !created.contains(kind + "/" + id) {
                    held[kind + "/" + id] = sha
                }
            }
            return zip(records, hashes).map { record, sha in
                let key = record.kind.rawValue + "/" + record.id
                return PutOutcome.result(kind: record.kind, id: record.id, stored: created.contains(key) ? nil : held[key], received: sha)
            }
        }
    }

    public func putLivePosition(device: String, body: Data) async throws {
        try await client.query(
            """
            INSERT INTO live_positions (device_id, body) VALUES (\(device), \(body))
            ON CONFLICT (device_id) DO UPDATE SET body = excluded.body, updates = live_positions.updates + 1, received_at = now()
            """, logger: logger)
    }

    public func authenticate(token: String) async throws -> DeviceAuth {
        let h = HubHash.token(token)
        for try await (device, revoked) in try await client.query(
            "SELECT device_id, revoked FROM devices WHERE token_sha256 = \(h)", logger: logger
        ).decode((String, Bool).self) {
            return revoked ? .revoked : .device(device)
        }
        return .unknown
    }

    public func issueToken(device: String, token: String) async throws {
        let sha = HubHash.token(token)
        for try await (holder, revoked, manager) in try await client.query(
            "SELECT device_id, revoked, managed_by FROM devices WHERE token_sha256 = \(sha) AND device_id <> \(device)", logger: logger
        )
        .decode((String, Bool, String).self) {
            throw TokenInUse(device: device, line: 0, holder: holder, holderState: TokenInUse.state(revoked: revoked, managedBy: manager))
        }
        try await client.query(
            """
            INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (\(device), \(HubHash.token(token)), false, 'command')
            ON CONFLICT (device_id) DO UPDATE SET token_sha256 = excluded.token_sha256, revoked = false, managed_by = 'command'
            """, logger: logger)
    }

    public func revoke(device: String) async throws -> Bool {
        !(try await client.query("UPDATE devices SET revoked = true WHERE device_id = \(device) RETURNING 1", logger: logger).collect())
            .isEmpty
    }

    public func devices() async throws -> [DeviceTokenStatus] {
        try await client.withConnection { conn in
            try await Self.deviceRows(conn, logger: logger).map {
                DeviceTokenStatus(device: $0.device, revoked: $0.revoked, managedBy: $0.managedBy)
            }
        }
    }

    public func apply(tokenFile entries: [TokenFileEntry]) async throws -> TokenFileReport {
        do {
            return try await applyLocked(entries)
        } catch let e as PostgresTransactionError {
            // The plan's own refusal, not the database's: hand it on as it was thrown.
            if let inUse = e.closureError as? TokenInUse { throw inUse }
            throw e
        }
    }

    private func applyLocked(_ entries: [TokenFileEntry]) async throws -> TokenFileReport {
        try await client.withTransaction(logger: logger) { conn in
            // One replica at a time: the plan is made from the rows it read.
            try await conn.query("LOCK TABLE devices IN SHARE ROW EXCLUSIVE MODE", logger: logger)
            let plan = try TokenFilePlan(entries: entries, existing: try await Self.deviceRows(conn, logger: logger))
            for change in plan.changes {
                switch change {
                case .insert(let device, let sha, let revoked):
                    try await conn.query(
                        "INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (\(device), \(sha), \(revoked), 'file')",
                        logger: logger)
                case .revoke(let device):
                    try await conn.query("UPDATE devices SET revoked = true WHERE device_id = \(device)", logger: logger)
                case .setToken(let device, let sha):
                    try await conn.query("UPDATE devices SET token_sha256 = \(sha) WHERE device_id = \(device)", logger: logger)
                }
            }
            return plan.report
        }
    }

    public func confirmations() async throws -> [ConfirmedRecord] {
        var out: [ConfirmedRecord] = []
        for try await (device, body) in try await client.query(
            "SELECT device_id, body FROM records WHERE kind = 'confirmation' ORDER BY device_id, id", logger: logger
        ).decode((String, Data).self) {
            out.append(ConfirmedRecord(device: device, body: body))
        }
        return out
    }

    public func trips(device: String) async throws -> [Data] {
        try await values("SELECT body FROM records WHERE device_id = \(device) AND kind = 'trip' ORDER BY id")
    }

    public func unindexedConfirmations(after: ConfirmationKey?, limit: Int) async throws -> [IndexableConfirmation] {
        let (device, id) = (after?.device ?? "", after?.id ?? "")
        var out: [IndexableConfirmation] = []
        for try await (device, id, body) in try await client.query(
            """
            SELECT device_id, id, body FROM records r WHERE kind = 'confirmation'
            AND (device_id > \(device) OR (device_id = \(device) AND id > \(id)))
            AND NOT EXISTS (SELECT 1 FROM map_indexed m WHERE m.device_id = r.device_id AND m.id = r.id)
            ORDER BY device_id, id LIMIT \(limit)
            """, logger: logger
        ).decode((String, String, Data).self) {
            out.append(IndexableConfirmation(device: device, id: id, body: body))
        }
        return out
    }

    public func countIndexingAttempt(_ keys: [ConfirmationKey]) async throws -> [ConfirmationKey: Int] {
        let keys = Set(keys).sorted()
        var before: [ConfirmationKey: Int] = [:]
        for try await (device, id, attempts) in try await client.query(
            """
            INSERT INTO map_attempts SELECT d, i, 1, NULL FROM unnest(\(keys.map(\.device))::text[], \(keys.map(\.id))::text[]) AS u(d, i)
            ON CONFLICT (device_id, id) DO UPDATE SET attempts = map_attempts.attempts + 1
            RETURNING device_id, id, attempts - 1
            """, logger: logger
        ).decode((String, String, Int).self) {
            before[ConfirmationKey(device: device, id: id)] = attempts
        }
        return before
    }

    public func setAsideConfirmations() async throws -> [SetAsideConfirmation] {
        var out: [SetAsideConfirmation] = []
        for try await (device, id, reason, attempts) in try await client.query(
            "SELECT device_id, id, set_aside, attempts FROM map_attempts WHERE set_aside IS NOT NULL ORDER BY device_id, id",
            logger: logger
        ).decode((String, String, String, Int).self) {
            out.append(SetAsideConfirmation(key: ConfirmationKey(device: device, id: id), reason: reason, attempts: attempts))
        }
        return out
    }

    public func index(_ entries: [MapIndexEntry], dirty: Set<MapGrid.Cell>) async throws {
        try await client.withTransaction(logger: logger) { conn in
            // Three statements for the batch, not three per confirmation (a round trip each: one
            // hub's CPU a request with the map caught up went from 3.03 to 2.75 ms, docs/performance.md).
            let tiles = entries.flatMap { e in e.tiles.map { (tile: $0, key: e.confirmation.key) } }.sorted {
                ($0.tile, $0.key) < ($1.tile, $1.key)
            }
            if !tiles.isEmpty {
                try await conn.query(
                    """
                    INSERT INTO map_tile_records SELECT * FROM unnest(\(PostgresNumbers(tiles.map(\.tile.row)))::int[],
                        \(PostgresNumbers(tiles.map(\.tile.column)))::int[],
                        \(tiles.map(\.key.device))::text[], \(tiles.map(\.key.id))::text[]) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            // Its evidence once: a confirmation indexed before (by another replica too: this
            // insert waits for that one's transaction) adds nothing. In key order, as the sums.
            let keys = Set(entries.map(\.confirmation.key)).sorted()
            var fresh = Set<ConfirmationKey>()
            for try await (device, id) in try await conn.query(
                """
                INSERT INTO map_indexed SELECT * FROM unnest(\(keys.map(\.device))::text[], \(keys.map(\.id))::text[])
                ON CONFLICT DO NOTHING RETURNING device_id, id
                """, logger: logger
            ).decode((String, String).self) {
                fresh.insert(ConfirmationKey(device: device, id: id))
            }
            let added = MapEvidence.Total(entries.filter { fresh.remove($0.confirmation.key) != nil }.map(\.evidence))
            // Attempts forgotten once indexed; a set-aside one keeps them, with its reason.
            let aside = entries.compactMap { e in e.setAside.map { (key: e.confirmation.key, reason: $0) } }
            let asideKeys = Set(aside.map(\.key)), done = keys.filter { !asideKeys.contains($0) }
            try await conn.query(
                """
                DELETE FROM map_attempts WHERE (device_id, id) IN (SELECT * FROM unnest(\(done.map(\.device))::text[], \(done.map(\.id))::text[]))
                """, logger: logger)
            if !aside.isEmpty {
                try await conn.query(
                    """
                    INSERT INTO map_attempts SELECT d, i, 0, r FROM unnest(\(aside.map(\.key.device))::text[], \(aside.map(\.key.id))::text[],
                        \(aside.map(\.reason))::text[]) AS u(d, i, r)
                    ON CONFLICT (device_id, id) DO UPDATE SET set_aside = excluded.set_aside
                    """, logger: logger)
            }
            // The network's queue in the batch's order (its arrival order): the sequence is
            // drawn row by row in that order.
            let rides = entries.filter { !$0.tiles.isEmpty }.map(\.confirmation.key)
            if !rides.isEmpty {
                try await conn.query(
                    """
                    INSERT INTO map_network_queue (device_id, id) SELECT d, i FROM unnest(\(rides.map(\.device))::text[],
                        \(rides.map(\.id))::text[]) WITH ORDINALITY AS u(d, i, n) ORDER BY n ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
            try await Self.add(added, conn, logger: logger)
            let marked = dirty.sorted()
            try await conn.query(
                """
                INSERT INTO map_dirty SELECT r, c, nextval('map_dirty_version')
                FROM unnest(\(marked.map(\.row))::int[], \(marked.map(\.column))::int[]) AS u(r, c)
                ON CONFLICT (tile_row, tile_column) DO UPDATE SET version = excluded.version, claimed_until = NULL
                """, logger: logger)
        }
    }

    /// In key order: two replicas adding to the same rows lock them in the same order.
    private static func add(_ total: MapEvidence.Total, _ conn: PostgresConnection, logger: Logger) async throws {
        let passes = total.passes, evidence = total.rest
        if !passes.isEmpty {
            try await conn.query(
                """
                INSERT INTO map_passes SELECT * FROM unnest(\(PostgresNumbers(passes.map(\.key.cell.row)))::int[],
                    \(PostgresNumbers(passes.map(\.key.cell.column)))::int[], \(PostgresNumbers(passes.map(\.key.sector)))::int[],
                    \(PostgresNumbers(passes.map(\.rides)))::int[])
                ON CONFLICT (cell_row, cell_column, sector) DO UPDATE SET rides = map_passes.rides + excluded.rides
                """, logger: logger)
        }
        let reports = evidence.reports.keys.sorted()
        if !reports.isEmpty {
            let tiles = reports.map { MapEvidence.tile(ofReportCell: $0.cell) }, tallies = reports.map { evidence.reports[$0]! }
            // No day: a day no trip can have (the arrays carry no NULL).
            let none = Int(Int32.min)
            try await conn.query(
                """
                INSERT INTO map_reports SELECT tr, tc, cr, cc, s, k, d, n, la, lo, ax, ay, NULLIF(fd, \(none)), NULLIF(ld, \(none))
                FROM unnest(\(tiles.map(\.row))::int[], \(tiles.map(\.column))::int[], \(reports.map(\.cell.row))::int[],
                    \(reports.map(\.cell.column))::int[], \(reports.map(\.sector))::int[], \(reports.map(\.kind))::text[],
                    \(reports.map(\.device))::text[], \(tallies.map(\.count))::int[], \(tallies.map(\.latitude))::int8[],
                    \(tallies.map(\.longitude))::int8[], \(tallies.map(\.axisX))::int8[], \(tallies.map(\.axisY))::int8[],
                    \(tallies.map { $0.firstDay ?? none })::int[], \(tallies.map { $0.lastDay ?? none })::int[])
                    AS u(tr, tc, cr, cc, s, k, d, n, la, lo, ax, ay, fd, ld)
                ON CONFLICT (tile_row, tile_column, cell_row, cell_column, sector, kind, device_id) DO UPDATE SET
                    reports = map_reports.reports + excluded.reports, lat_sum = map_reports.lat_sum + excluded.lat_sum,
                    lon_sum = map_reports.lon_sum + excluded.lon_sum, axis_x = map_reports.axis_x + excluded.axis_x,
                    axis_y = map_reports.axis_y + excluded.axis_y, first_day = LEAST(map_reports.first_day, excluded.first_day),
                    last_day = GREATEST(map_reports.last_day, excluded.last_day)
                """, logger: logger)
        }
        let cells = evidence.statusCells, sorted = cells.keys.sorted()
        let lengths = sorted.flatMap { cell in cells[cell]!.lengths.keys.sorted { $0.rawValue < $1.rawValue }.map { (cell, $0) } }
        if !lengths.isEmpty {
            let tiles = lengths.map { MapEvidence.tile(ofStretchCell: $0.0) }
            try await conn.query(
                """
                INSERT INTO map_stretches SELECT * FROM unnest(\(tiles.map(\.row))::int[], \(tiles.map(\.column))::int[],
                    \(lengths.map(\.0.row))::int[], \(lengths.map(\.0.column))::int[], \(lengths.map(\.1.rawValue))::text[],
                    \(lengths.map { cells[$0.0]!.lengths[$0.1]! })::int8[])
                ON CONFLICT (tile_row, tile_column, cell_row, cell_column, status)
                DO UPDATE SET length_mm = map_stretches.length_mm + excluded.length_mm
                """, logger: logger)
            // Each cell's riders new to it, then one more behind its status for each.
            let riders = Set(evidence.stretches.keys.map { RiderReports.Key(cell: $0.cell, device: $0.device) }).sorted()
            let riderTiles = riders.map { MapEvidence.tile(ofStretchCell: $0.cell) }
            try await conn.query(
                """
                WITH new AS (
                    INSERT INTO map_stretch_riders SELECT * FROM unnest(\(riderTiles.map(\.row))::int[], \(riderTiles.map(\.column))::int[],
                        \(riders.map(\.cell.row))::int[], \(riders.map(\.cell.column))::int[], \(riders.map(\.device))::text[])
                    ON CONFLICT DO NOTHING RETURNING tile_row, tile_column, cell_row, cell_column
                )
                INSERT INTO map_status_riders SELECT tile_row, tile_column, cell_row, cell_column, count(*) FROM new
                GROUP BY tile_row, tile_column, cell_row, cell_column ORDER BY tile_row, tile_column, cell_row, cell_column
                ON CONFLICT (tile_row, tile_column, cell_row, cell_column) DO UPDATE SET riders = map_status_riders.riders + excluded.riders
                """, logger: logger)
        }
    }

    public func mapEvidence(_ windows: [ReportWindow]) async throws -> MapEvidence {
        var evidence = MapEvidence()
        try await forEachReport(windows) { evidence.reports[$0] = $1 }
        return evidence
    }

    public func mapReportGroups(_ windows: [ReportWindow]) async throws -> [CorroborationRule.ReportGroup] {
        var groups = CorroborationRule.ReportGroup.Collector()
        try await forEachReport(windows) { groups.add($0, $1) }
        return groups.groups()
    }

    /// Each stored report tally in `windows`.
    private func forEachReport(
        _ windows: [ReportWindow], _ body: (MapEvidence.ReportKey, MapEvidence.ReportTally) -> Void
    ) async throws {
        guard !windows.isEmpty else { return }
        let tiles = windows.map(\.tile)
        for try await (cr, cc, sector, kind, device, n, la, lo, ax, ay, fd, ld) in try await client.query(
            """
            SELECT cell_row, cell_column, sector, kind, device_id, reports, lat_sum, lon_sum, axis_x, axis_y, first_day, last_day
            FROM map_reports m JOIN unnest(\(tiles.map(\.row))::int[], \(tiles.map(\.column))::int[],
                \(windows.map(\.rows.lowerBound))::int[], \(windows.map(\.rows.upperBound))::int[],
                \(windows.map(\.columns.lowerBound))::int[], \(windows.map(\.columns.upperBound))::int[]) AS u(tr, tc, r0, r1, c0, c1)
            ON m.tile_row = u.tr AND m.tile_column = u.tc AND m.cell_row BETWEEN u.r0 AND u.r1 AND m.cell_column BETWEEN u.c0 AND u.c1
            """, logger: logger
        ).decode((Int, Int, Int, String, String, Int, Int64, Int64, Int64, Int64, Int?, Int?).self) {
            body(
                MapEvidence.ReportKey(cell: MapGrid.Cell(row: cr, column: cc), sector: sector, kind: kind, device: device),
                MapEvidence.ReportTally(count: n, latitude: la, longitude: lo, axisX: ax, axisY: ay, firstDay: fd, lastDay: ld))
        }
    }

    public func mapStatusCells(tiles: [MapGrid.Cell]) async throws -> [MapGrid.Cell: MapEvidence.StatusCell] {
        guard !tiles.isEmpty else { return [:] }
        let rows = tiles.map(\.row), columns = tiles.map(\.column)
        var cells: [MapGrid.Cell: MapEvidence.StatusCell] = [:]
        for try await (cr, cc, riders) in try await client.query(
            """
            SELECT cell_row, cell_column, riders
            FROM map_status_riders m JOIN unnest(\(rows)::int[], \(columns)::int[]) AS u(tr, tc) ON m.tile_row = u.tr AND m.tile_column = u.tc
            """, logger: logger
        ).decode((Int, Int, Int).self) {
            cells[MapGrid.Cell(row: cr, column: cc)] = MapEvidence.StatusCell(lengths: [:], riders: riders)
        }
        for try await (cr, cc, status, length) in try await client.query(
            """
            SELECT cell_row, cell_column, status, length_mm
            FROM map_stretches m JOIN unnest(\(rows)::int[], \(columns)::int[]) AS u(tr, tc) ON m.tile_row = u.tr AND m.tile_column = u.tc
            """, logger: logger
        ).decode((Int, Int, String, Int64).self) {
            // A status this edition does not know is left out, as an unknown status in an upload is.
            guard let status = PathStatus(rawValue: status) else { continue }
            cells[MapGrid.Cell(row: cr, column: cc), default: MapEvidence.StatusCell(lengths: [:], riders: 0)].lengths[status] = length
        }
        return cells
    }

    public func mapPasses(cells: Set<MapGrid.Cell>) async throws -> [MapEvidence.PassKey: Int] {
        guard !cells.isEmpty else { return [:] }
        let sorted = cells.sorted()
        var passes: [MapEvidence.PassKey: Int] = [:]
        for try await (row, column, sector, rides) in try await client.query(
            """
            SELECT cell_row, cell_column, sector, rides FROM map_passes m
            JOIN unnest(\(sorted.map(\.row))::int[], \(sorted.map(\.column))::int[]) AS u(r, c) ON m.cell_row = u.r AND m.cell_column = u.c
            """, logger: logger
        ).decode((Int, Int, Int, Int).self) {
            passes[MapEvidence.PassKey(cell: MapGrid.Cell(row: row, column: column), sector: sector)] = rides
        }
        return passes
    }

    public func resetMapEvidence() async throws {
        // One statement, so one transaction.
        try await client.query(
            "TRUNCATE map_passes, map_reports, map_stretches, map_status_riders, map_stretch_riders, map_indexed, map_attempts",
            logger: logger)
    }

    public func dirtyMapTiles(limit: Int) async throws -> [DirtyTile] {
        var out: [DirtyTile] = []
        for try await (row, column, version) in try await client.query(
            "SELECT tile_row, tile_column, version FROM map_dirty ORDER BY version LIMIT \(limit)", logger: logger
        ).decode((Int, Int, Int64).self) {
            out.append(DirtyTile(tile: MapGrid.Cell(row: row, column: column), version: version))
        }
        return out
    }

    /// Claims by a lease rather than a lock held through the recomputation: a replica that
    /// dies mid-pass leaves its tiles to the others `MapTiles.claimLease` later. SKIP LOCKED: two
    /// replicas claiming at once take different tiles instead of waiting on each other.
    public func claimDirtyMapTiles(limit: Int) async throws -> [DirtyTile] {
        var out: [DirtyTile] = []
        let lease = Int(MapTiles.claimLease.components.seconds)
        for try await (row, column, version) in try await client.query(
            """
            UPDATE map_dirty d SET claimed_until = now() + make_interval(secs => \(lease))
            FROM (SELECT tile_row, tile_column FROM map_dirty WHERE claimed_until IS NULL OR claimed_until < now()
                  ORDER BY version LIMIT \(limit) FOR UPDATE SKIP LOCKED) c
            WHERE d.tile_row = c.tile_row AND d.tile_column = c.tile_column
            RETURNING d.tile_row, d.tile_column, d.version
            """, logger: logger
        ).decode((Int, Int, Int64).self) {
            out.append(DirtyTile(tile: MapGrid.Cell(row: row, column: column), version: version))
        }
        return out.sorted { $0.version < $1.version }
    }

    @discardableResult
    public func storeMapTile(_ remade: RemadeTile) async throws -> Bool {
        let (tile, slice, links) = (remade.tile, remade.slice, remade.links)
        let (row, column) = (tile.tile.row, tile.tile.column)
        let obstacles = try remade.routingObstacles
        let ids = links.keys.sorted()
        return try await client.withTransaction(logger: logger) { conn in
            // First: the row lock it takes orders this against a concurrent mark of the tile.
            let cleared = try await conn.query(
                """
                DELETE FROM map_dirty WHERE tile_row = \(row) AND tile_column = \(column) AND version = \(tile.version) RETURNING 1
                """, logger: logger
            ).collect()
            guard !cleared.isEmpty else { return false }
            try await conn.query(
                """
                INSERT INTO map_tiles VALUES (\(row), \(column), \(ByteBuffer(bytes: slice)))
                ON CONFLICT (tile_row, tile_column) DO UPDATE SET slice = excluded.slice
                """, logger: logger)
            // Written only when they changed: its row triggers move the routing version (schema step v18).
            if let obstacles {
                try await conn.query(
                    """
                    INSERT INTO routing_obstacles VALUES (\(row), \(column), \(ByteBuffer(bytes: obstacles)))
                    ON CONFLICT (tile_row, tile_column) DO UPDATE SET obstacles = excluded.obstacles
                    WHERE routing_obstacles.obstacles IS DISTINCT FROM excluded.obstacles
                    """, logger: logger)
            } else {
                try await conn.query("DELETE FROM routing_obstacles WHERE tile_row = \(row) AND tile_column = \(column)", logger: logger)
            }
            // Only the links whose obstacles changed are written: a tile holds thousands of
            // links and a remake usually changes the obstacles of none or a few. (Measured, this
            // did not make a ride's map update visibly faster: its reads cost more than these writes.)
            try await conn.query(
                """
                UPDATE map_links l SET obstacles = coalesce(u.n, 0), obstacle_confidence = coalesce(u.c, 0)
                FROM map_links o LEFT JOIN unnest(\(ids)::bigint[], \(ids.map { links[$0]!.count })::int[],
                    \(ids.map { links[$0]!.confidence })::float8[]) AS u(id, n, c) ON u.id = o.id
                WHERE l.id = o.id AND o.tile_row = \(row) AND o.tile_column = \(column) AND (o.obstacles > 0 OR u.id IS NOT NULL)
                AND (o.obstacles, o.obstacle_confidence) IS DISTINCT FROM (coalesce(u.n, 0), coalesce(u.c, 0))
                """, logger: logger)
            try await Self.refreshCosts(conn, "tile_row = \(row) AND tile_column = \(column)", logger: logger)
            return true
        }
    }

    public func routingObstacles(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data] {
        try await values(
            """
            SELECT obstacles FROM routing_obstacles WHERE tile_row BETWEEN \(rows.lowerBound) AND \(rows.upperBound)
            AND tile_column BETWEEN \(columns.lowerBound) AND \(columns.upperBound) ORDER BY tile_row, tile_column
            """)
    }

    public func mapEdition() async throws -> String? {
        try await values("SELECT value FROM map_edition", as: String.self).first
    }

    public func setMapEdition(_ edition: String) async throws {
        try await client.withTransaction(logger: logger) { conn in
            try await conn.query("DELETE FROM map_edition", logger: logger)
            try await conn.query("INSERT INTO map_edition VALUES (\(edition))", logger: logger)
        }
    }

    public func mapTilesInUse() async throws -> [MapGrid.Cell] {
        var out: [MapGrid.Cell] = []
        for try await (row, column) in try await client.query(
            "SELECT tile_row, tile_column FROM map_tiles UNION SELECT tile_row, tile_column FROM map_tile_records", logger: logger
        ).decode((Int, Int).self) {
            out.append(MapGrid.Cell(row: row, column: column))
        }
        return out
    }

    public func mapSlices(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data] {
        try await values(
            """
            SELECT slice FROM map_tiles WHERE tile_row BETWEEN \(rows.lowerBound) AND \(rows.upperBound)
            AND tile_column BETWEEN \(columns.lowerBound) AND \(columns.upperBound) ORDER BY tile_row, tile_column
            """)
    }

    /// The one column of each row `query` answers.
    private func values<Value: PostgresDecodable & Sendable>(_ query: PostgresQuery, as: Value.Type = Value.self) async throws -> [Value] {
        var out: [Value] = []
        for try await value in try await client.query(query, logger: logger).decode(Value.self) { out.append(value) }
        return out
    }

    private static func deviceRows(_ conn: PostgresConnection, logger: Logger) async throws -> [DeviceRow] {
        var rows: [DeviceRow] = []
        for try await (device, sha, revoked, manager) in try await conn.query(
            "SELECT device_id, token_sha256, revoked, managed_by FROM devices ORDER BY device_id", logger: logger
        )
        .decode((String, String, Bool, String).self) {
            rows.append(DeviceRow(device: device, tokenSHA256: sha, revoked: revoked, managedBy: TokenManager(rawValue: manager) ?? .file))
        }
        return rows
    }
}
