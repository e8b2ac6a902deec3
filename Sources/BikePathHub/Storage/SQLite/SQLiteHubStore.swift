import BikePathAPI
import BikePathCore
import Foundation
import GRDB
import GRDBSQLite
import Logging

/// The hub on one SQLite file (`--db FILE`): the embedded default for a rider who hosts
/// their own hub. One writer at a time (WAL), so a record's check-then-insert in one
/// transaction is already atomic.
public final class SQLiteHubStore: HubStore {
    let pool: DatabasePool
    /// The kept routing graph: read once per routing version, shared by searches.
    public let routingCache = RoutingCache()

    /// Opens (or creates, mode 0600: it holds every device's records) the hub's database.
    /// Does not migrate: call `migrate()`.
    public init(path: String) throws {
        try PrivateFile.create(path: path)
        var config = Configuration()
        config.busyMode = .timeout(5)
        pool = try DatabasePool(path: path, configuration: config)
        // A record is answered 201 only once it is on disk: the device then marks it sent
        // and never sends it again. GRDB's pool sets its one writer connection to WAL with
        // synchronous = NORMAL, which a power cut may roll back past answered commits;
        // FULL fsyncs the WAL at each commit (set after the pool, which would undo it).
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }

    /// A consistent copy of the whole store at `path` (SQLite's `VACUUM INTO`), taken while
    /// the hub runs: a backup, or a benchmark's city kept for the next run.
    public func copy(to path: String) async throws {
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
    }

    /// `HubSchema.steps` as GRDB migrations (identifiers kept in `grdb_migrations`). A step
    /// an earlier build applied under another name (`formerly`) merges it: GRDB records the
    /// step's name in its place and the step's SQL does not run again.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        for step in HubSchema.steps {
            let former = step.formerly[.sqlite].map { Set([$0]) } ?? []
            migrator.registerMigration(step.name, merging: former) { db, applied in
                guard applied.isEmpty else { return }
                for sql in step.sqlite { try db.execute(sql: sql) }
                try step.sqliteProgram?(db)
            }
        }
        return migrator
    }

    /// Bodies stored in the pre-release camelCase keys rewritten in today's snake_case
    /// (`SnakeCaseBodies`), a batch of rows at a time, in the step's transaction.
    static func rewriteBodiesInSnakeCase(_ db: Database) throws {
        var tally = SnakeCaseBodies.Tally()
        var after = ["", "", ""]
        while true {
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT device_id, kind, id, body FROM records WHERE (device_id, kind, id) > (?, ?, ?)
                    ORDER BY device_id, kind, id LIMIT ?
                    """, arguments: [after[0], after[1], after[2], SnakeCaseBodies.batch])
            for row in rows {
                let (device, kind, id): (String, String, String) = (row[0], row[1], row[2])
                let outcome = SnakeCaseBodies.reencoded(kind: kind, body: row[3])
                tally.add(outcome)
                if case .rewritten(let body, let sha256) = outcome {
                    try db.execute(
                        sql: "UPDATE records SET body = ?, sha256 = ? WHERE device_id = ? AND kind = ? AND id = ?",
                        arguments: [body, sha256, device, kind, id])
                }
                after = [device, kind, id]
            }
            if rows.count < SnakeCaseBodies.batch { break }
        }
        tally.log("v11-snake-case-bodies", migrationLogger)
    }

    /// `v12-one-schema`: map_stretch_riders' rows into the table with their tiles (created
    /// by the step's SQL), which then takes the old table's name.
    static func addTilesToStretchRiders(_ db: Database) throws {
        let insert = try db.makeStatement(sql: "INSERT INTO map_stretch_riders_v12 VALUES (?, ?, ?, ?, ?)")
        let rows = try Row.fetchCursor(db, sql: "SELECT cell_row, cell_column, device_id FROM map_stretch_riders")
        while let row = try rows.next() {
            let cell = MapGrid.Cell(row: row[0], column: row[1])
            let tile = MapEvidence.tile(ofStretchCell: cell)
            try insert.execute(arguments: [tile.row, tile.column, cell.row, cell.column, row[2] as String])
        }
        try db.execute(sql: "DROP TABLE map_stretch_riders; ALTER TABLE map_stretch_riders_v12 RENAME TO map_stretch_riders")
    }

    /// Where a migration says what it did (`bikepath-hub`'s log handler, once bootstrapped).
    static let migrationLogger = Logger(label: "bikepath-hub.migration")

    public func migrate() async throws { try Self.migrator.migrate(pool) }

    public func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try Self.migrator.appliedMigrations(db) }
    }

    public func put(device: String, records: [StorableRecord]) async throws -> [RecordResult] {
        let now = ISO8601DateFormatter().string(from: Date())
        return try await pool.write { db in
            // Cached, as every statement an upload runs: each was compiled anew per record.
            let held = try db.cachedStatement(sql: "SELECT sha256 FROM records WHERE device_id = ? AND kind = ? AND id = ?")
            let insert = try db.cachedStatement(
                sql: "INSERT INTO records (device_id, kind, id, sha256, body, received_at) VALUES (?, ?, ?, ?, ?, ?)")
            return try records.map { kind, id, body in
                let sha = HubHash.sha256Hex(body)
                let stored = try String.fetchOne(held, arguments: [device, kind.rawValue, id])
                if stored == nil { try insert.execute(arguments: [device, kind.rawValue, id, sha, body, now]) }
                return PutOutcome.result(kind: kind, id: id, stored: stored, received: sha)
            }
        }
    }

    public func putLivePosition(device: String, body: Data) async throws {
        let now = ISO8601DateFormatter().string(from: Date())
        try await pool.write { db in
            try db.execute(
                sql: """
                    INSERT INTO live_positions (device_id, body, received_at) VALUES (?, ?, ?)
                    ON CONFLICT(device_id) DO UPDATE SET body = excluded.body, updates = updates + 1, received_at = excluded.received_at
                    """, arguments: [device, body, now])
        }
    }

    public func authenticate(token: String) async throws -> DeviceAuth {
        let h = HubHash.token(token)
        return try await pool.read { db in
            let statement = try db.cachedStatement(sql: "SELECT device_id, revoked FROM devices WHERE token_sha256 = ?")
            guard let row = try Row.fetchOne(statement, arguments: [h]) else { return .unknown }
            return (row["revoked"] as Int) != 0 ? .revoked : .device(row["device_id"])
        }
    }

    public func issueToken(device: String, token: String) async throws {
        try await pool.write { db in
            if let row = try Row.fetchOne(
                db, sql: "SELECT device_id, revoked, managed_by FROM devices WHERE token_sha256 = ? AND device_id <> ?",
                arguments: [HubHash.token(token), device])
            {
                throw TokenInUse(
                    device: device, line: 0, holder: row["device_id"],
                    holderState: TokenInUse.state(revoked: (row["revoked"] as Int) != 0, managedBy: row["managed_by"]))
            }
            try db.execute(
                sql: """
                    INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (?, ?, 0, 'command')
                    ON CONFLICT(device_id) DO UPDATE SET token_sha256 = excluded.token_sha256, revoked = 0, managed_by = 'command'
                    """, arguments: [device, HubHash.token(token)])
        }
    }

    public func revoke(device: String) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE device_id = ?", arguments: [device])
            return db.changesCount > 0
        }
    }

    public func devices() async throws -> [DeviceTokenStatus] {
        try await pool.read { db in
            try Self.deviceRows(db).map { DeviceTokenStatus(device: $0.device, revoked: $0.revoked, managedBy: $0.managedBy) }
        }
    }

    public func apply(tokenFile entries: [TokenFileEntry]) async throws -> TokenFileReport {
        try await pool.write { db in
            let plan = try TokenFilePlan(entries: entries, existing: try Self.deviceRows(db))
            for change in plan.changes {
                switch change {
                case .insert(let device, let sha, let revoked):
                    try db.execute(
                        sql: "INSERT INTO devices (device_id, token_sha256, revoked, managed_by) VALUES (?, ?, ?, 'file')",
                        arguments: [device, sha, revoked ? 1 : 0])
                case .revoke(let device):
                    try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE device_id = ?", arguments: [device])
                case .setToken(let device, let sha):
                    try db.execute(sql: "UPDATE devices SET token_sha256 = ? WHERE device_id = ?", arguments: [sha, device])
                }
            }
            return plan.report
        }
    }

    public func confirmations() async throws -> [ConfirmedRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT device_id, body FROM records WHERE kind = 'confirmation' ORDER BY device_id, id")
                .map { ConfirmedRecord(device: $0["device_id"], body: $0["body"]) }
        }
    }

    public func trips(device: String) async throws -> [Data] {
        try await pool.read { db in
            try Data.fetchAll(db, sql: "SELECT body FROM records WHERE device_id = ? AND kind = 'trip' ORDER BY id", arguments: [device])
        }
    }

    public func unindexedConfirmations(after: ConfirmationKey?, limit: Int) async throws -> [IndexableConfirmation] {
        let (device, id) = (after?.device ?? "", after?.id ?? "")
        return try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT device_id, id, body FROM records r WHERE kind = 'confirmation' AND (device_id > ? OR (device_id = ? AND id > ?))
                    AND NOT EXISTS (SELECT 1 FROM map_indexed m WHERE m.device_id = r.device_id AND m.id = r.id)
                    ORDER BY device_id, id LIMIT ?
                    """, arguments: [device, device, id, limit]
            ).map { IndexableConfirmation(device: $0["device_id"], id: $0["id"], body: $0["body"]) }
        }
    }

    public func countIndexingAttempt(_ keys: [ConfirmationKey]) async throws -> [ConfirmationKey: Int] {
        try await pool.write { db in
            let count = try db.cachedStatement(
                sql: """
                    INSERT INTO map_attempts VALUES (?, ?, 1, NULL)
                    ON CONFLICT (device_id, id) DO UPDATE SET attempts = attempts + 1 RETURNING attempts - 1
                    """)
            var before: [ConfirmationKey: Int] = [:]
            for key in Set(keys) { before[key] = try Int.fetchOne(count, arguments: [key.device, key.id]) ?? 0 }
            return before
        }
    }

    public func setAsideConfirmations() async throws -> [SetAsideConfirmation] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT device_id, id, set_aside, attempts FROM map_attempts WHERE set_aside IS NOT NULL ORDER BY device_id, id"
            ).map { SetAsideConfirmation(key: ConfirmationKey(device: $0[0], id: $0[1]), reason: $0[2], attempts: $0[3]) }
        }
    }

    public func index(_ entries: [MapIndexEntry], dirty: Set<MapGrid.Cell>) async throws {
        try await pool.write { db in
            // Cached: a batch of 64 rides runs these some 2,000 times.
            let tileRecord = try db.cachedStatement(sql: "INSERT OR IGNORE INTO map_tile_records VALUES (?, ?, ?, ?)")
            let indexed = try db.cachedStatement(sql: "INSERT OR IGNORE INTO map_indexed VALUES (?, ?)")
            let queued = try db.cachedStatement(sql: "INSERT OR IGNORE INTO map_network_queue (device_id, id) VALUES (?, ?)")
            let forget = try db.cachedStatement(sql: "DELETE FROM map_attempts WHERE device_id = ? AND id = ?")
            let setAside = try db.cachedStatement(
                sql: """
                    INSERT INTO map_attempts VALUES (?, ?, 0, ?)
                    ON CONFLICT (device_id, id) DO UPDATE SET set_aside = excluded.set_aside
                    """)
            var fresh: [MapEvidence] = []
            for entry in entries {
                let confirmation = entry.confirmation
                if let reason = entry.setAside {
                    try setAside.execute(arguments: [confirmation.device, confirmation.id, reason])
                } else {
                    try forget.execute(arguments: [confirmation.device, confirmation.id])
                }
                for tile in entry.tiles {
                    try tileRecord.execute(arguments: [tile.row, tile.column, confirmation.device, confirmation.id])
                }
                try indexed.execute(arguments: [confirmation.device, confirmation.id])
                // Its evidence once: a confirmation indexed before (a retried upload, another scan) adds nothing.
                if db.changesCount == 1 { fresh.append(entry.evidence) }
                if !entry.tiles.isEmpty { try queued.execute(arguments: [confirmation.device, confirmation.id]) }
            }
            try Self.add(MapEvidence.Total(fresh), db)
            let counter = try db.cachedStatement(sql: "UPDATE map_counter SET value = value + 1 RETURNING value")
            let mark = try db.cachedStatement(
                sql: "INSERT INTO map_dirty VALUES (?, ?, ?) ON CONFLICT (tile_row, tile_column) DO UPDATE SET version = excluded.version")
            for tile in dirty {
                let version = try Int64.fetchOne(counter) ?? 0
                try mark.execute(arguments: [tile.row, tile.column, version])
            }
        }
    }

    /// Binds a cached statement's arguments with `bind` and steps it once.
    private static func step(_ statement: Statement, _ db: Database, bind: (OpaquePointer) -> Void) throws {
        let s = statement.sqliteStatement
        sqlite3_reset(s)
        defer { sqlite3_reset(s) }
        bind(s)
        let code = sqlite3_step(s)
        guard code == SQLITE_DONE else { throw failure(code, statement, db) }
    }

    /// What GRDB would throw for a step of `statement` through the C API that ended in `code`.
    private static func failure(_ code: Int32, _ statement: Statement, _ db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
    }

    private static func add(_ total: MapEvidence.Total, _ db: Database) throws {
        let evidence = total.rest
        // ~800 rows a ride: bound through the C API (GRDB boxes each row's arguments), in the
        // table's key order (`MapEvidence.Total` sorts them).
        let passes = try db.cachedStatement(
            sql: "INSERT INTO map_passes VALUES (?, ?, ?, ?) ON CONFLICT DO UPDATE SET rides = rides + excluded.rides")
        for (key, rides) in total.passes {
            try step(passes, db) { s in
                sqlite3_bind_int64(s, 1, Int64(key.cell.row))
                sqlite3_bind_int64(s, 2, Int64(key.cell.column))
                sqlite3_bind_int64(s, 3, Int64(key.sector))
                sqlite3_bind_int64(s, 4, Int64(rides))
            }
        }
        let reports = try db.cachedStatement(
            sql: """
                INSERT INTO map_reports VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET
                reports = reports + excluded.reports, lat_sum = lat_sum + excluded.lat_sum, lon_sum = lon_sum + excluded.lon_sum,
                axis_x = axis_x + excluded.axis_x, axis_y = axis_y + excluded.axis_y,
                first_day = min(coalesce(first_day, excluded.first_day), coalesce(excluded.first_day, first_day)),
                last_day = max(coalesce(last_day, excluded.last_day), coalesce(excluded.last_day, last_day))
                """)
        for (key, t) in evidence.reports {
            let tile = MapEvidence.tile(ofReportCell: key.cell)
            try reports.execute(arguments: [
                tile.row, tile.column, key.cell.row, key.cell.column, key.sector, key.kind, key.device, t.count, t.latitude, t.longitude,
                t.axisX, t.axisY, t.firstDay, t.lastDay,
            ])
        }
        let lengths = try db.cachedStatement(
            sql: "INSERT INTO map_stretches VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET length_mm = length_mm + excluded.length_mm")
        let rider = try db.cachedStatement(sql: "INSERT OR IGNORE INTO map_stretch_riders VALUES (?, ?, ?, ?, ?)")
        let riders = try db.cachedStatement(
            sql: "INSERT INTO map_status_riders VALUES (?, ?, ?, ?, 1) ON CONFLICT DO UPDATE SET riders = riders + 1")
        for (key, length) in evidence.stretches {
            let tile = MapEvidence.tile(ofStretchCell: key.cell)
            try lengths.execute(arguments: [tile.row, tile.column, key.cell.row, key.cell.column, key.status.rawValue, length])
            try rider.execute(arguments: [tile.row, tile.column, key.cell.row, key.cell.column, key.device])
            // A rider new to the cell: one more behind its status.
            if db.changesCount == 1 { try riders.execute(arguments: [tile.row, tile.column, key.cell.row, key.cell.column]) }
        }
    }

    public func mapEvidence(_ windows: [ReportWindow]) async throws -> MapEvidence {
        try await pool.read { db in
            var evidence = MapEvidence()
            // Counted first (an index range scan, a few % of the read): growing the dictionary
            // row by row rehashed its keys over and over, 15 % of a remake at 100× the city.
            evidence.reports.reserveCapacity(try Self.countReports(windows, db))
            try Self.forEachReport(windows, db) { evidence.reports[$0] = $1 }
            return evidence
        }
    }

    public func mapReportGroups(_ windows: [ReportWindow]) async throws -> [CorroborationRule.ReportGroup] {
        try await pool.read { db in
            var groups = CorroborationRule.ReportGroup.Collector()
            try Self.forEachReport(windows, db) { groups.add($0, $1) }
            return groups.groups()
        }
    }

    /// The stored reports in `windows`, as a query over them selects `select`.
    private static func reportsQuery(_ windows: [ReportWindow], _ select: String) -> String {
        let values = windows.map { w in  // integers only
            "(\(w.tile.row), \(w.tile.column), \(w.rows.lowerBound), \(w.rows.upperBound), \(w.columns.lowerBound), \(w.columns.upperBound))"
        }.joined(separator: ",")
        // CROSS JOIN: the windows drive, each an index range of the primary key (so each
        // window's rows come in key order).
        return """
            WITH w(tr, tc, r0, r1, c0, c1) AS (VALUES \(values))
            SELECT \(select) FROM w CROSS JOIN map_reports m ON m.tile_row = w.tr AND m.tile_column = w.tc
                AND m.cell_row BETWEEN w.r0 AND w.r1 AND m.cell_column BETWEEN w.c0 AND w.c1
            """
    }

    private static func countReports(_ windows: [ReportWindow], _ db: Database) throws -> Int {
        windows.isEmpty ? 0 : try Int.fetchOne(db, sql: reportsQuery(windows, "count(*)")) ?? 0
    }

    /// Each stored report tally in `windows`, read through SQLite's C API on GRDB's
    /// statement: a remake at 100× the city reads ~30,000 rows, and GRDB's row cursor
    /// (a type check and a boxed value per column) cost twice the query. Before that, by
    /// column name, GRDB lowercased each name for each row, and `fetchAll` copied every
    /// row first: 70 % of this read (docs/performance.md).
    private static func forEachReport(
        _ windows: [ReportWindow], _ db: Database, _ body: (MapEvidence.ReportKey, MapEvidence.ReportTally) -> Void
    ) throws {
        guard !windows.isEmpty else { return }
        let columns =
            "m.cell_row, m.cell_column, m.sector, m.kind, m.device_id, m.reports, m.lat_sum, m.lon_sum, "
            + "m.axis_x, m.axis_y, m.first_day, m.last_day"
        let statement = try db.makeStatement(sql: reportsQuery(windows, columns))
        let s = statement.sqliteStatement
        func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(s, i)) }
        func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(s, i) }
        func day(_ i: Int32) -> Int? { sqlite3_column_type(s, i) == SQLITE_NULL ? nil : int(i) }
        func text(_ i: Int32) -> String { sqlite3_column_text(s, i).map { String(cString: $0) } ?? "" }
        while true {
            let code = sqlite3_step(s)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw failure(code, statement, db) }
            body(
                MapEvidence.ReportKey(cell: MapGrid.Cell(row: int(0), column: int(1)), sector: int(2), kind: text(3), device: text(4)),
                MapEvidence.ReportTally(
                    count: int(5), latitude: int64(6), longitude: int64(7), axisX: int64(8), axisY: int64(9), firstDay: day(10),
                    lastDay: day(11)))
        }
    }

    public func mapStatusCells(tiles: [MapGrid.Cell]) async throws -> [MapGrid.Cell: MapEvidence.StatusCell] {
        guard !tiles.isEmpty else { return [:] }
        return try await pool.read { db in
            var cells: [MapGrid.Cell: MapEvidence.StatusCell] = [:]
            for row in try Row.fetchAll(
                db,
                sql: Self.select("cell_row, cell_column, riders", from: "map_status_riders", keys: ("tile_row", "tile_column"), in: tiles))
            {
                cells[MapGrid.Cell(row: row[0], column: row[1])] = MapEvidence.StatusCell(lengths: [:], riders: row[2])
            }
            for row in try Row.fetchAll(
                db,
                sql: Self.select(
                    "cell_row, cell_column, status, length_mm", from: "map_stretches", keys: ("tile_row", "tile_column"), in: tiles)
            ) {
                // A status this edition does not know is left out, as an unknown status in an upload is.
                guard let status = PathStatus(rawValue: row[2]) else { continue }
                cells[MapGrid.Cell(row: row[0], column: row[1]), default: MapEvidence.StatusCell(lengths: [:], riders: 0)]
                    .lengths[status] = row[3]
            }
            return cells
        }
    }

    /// `SELECT columns FROM table` of the rows whose `keys` are one of `cells`, each found
    /// by the index on `keys`. The cells drive a join: `WHERE (a, b) IN (VALUES …)` scanned
    /// the whole table (SQLite uses no index for a row value against a list), which at 100×
    /// the city was 8 ms of reading the rides at a remake's spots, and the network's nodes
    /// and links likewise (docs/performance.md). `ORDER BY` and the like may follow.
    static func select(
        _ columns: String, from table: String, keys: (row: String, column: String), in cells: some Collection<MapGrid.Cell>,
        then rest: String = ""
    ) -> String {
        // Each cell once: a join, unlike `IN`, would answer a row twice for a cell given twice.
        let values = Set(cells).map { "(\($0.row), \($0.column))" }.joined(separator: ",")  // integers only
        return """
            WITH wanted(wanted_row, wanted_column) AS (VALUES \(values))
            SELECT \(columns) FROM wanted CROSS JOIN \(table) ON \(keys.row) = wanted_row AND \(keys.column) = wanted_column \(rest)
            """
    }

    public func mapPasses(cells: Set<MapGrid.Cell>) async throws -> [MapEvidence.PassKey: Int] {
        guard !cells.isEmpty else { return [:] }
        return try await pool.read { db in
            var passes: [MapEvidence.PassKey: Int] = [:]
            for row in try Row.fetchAll(
                db,
                sql: Self.select("cell_row, cell_column, sector, rides", from: "map_passes", keys: ("cell_row", "cell_column"), in: cells))
            {
                passes[MapEvidence.PassKey(cell: MapGrid.Cell(row: row[0], column: row[1]), sector: row[2])] = row[3]
            }
            return passes
        }
    }

    public func resetMapEvidence() async throws {
        try await pool.write { db in
            try db.execute(
                sql:
                    "DELETE FROM map_passes; DELETE FROM map_reports; DELETE FROM map_stretches; DELETE FROM map_status_riders; DELETE FROM map_stretch_riders; DELETE FROM map_indexed; DELETE FROM map_attempts"
            )
        }
    }

    public func dirtyMapTiles(limit: Int) async throws -> [DirtyTile] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT tile_row, tile_column, version FROM map_dirty ORDER BY version LIMIT ?", arguments: [limit])
                .map { DirtyTile(tile: MapGrid.Cell(row: $0["tile_row"], column: $0["tile_column"]), version: $0["version"]) }
        }
    }

    /// One hub serves an SQLite file, and its one maintainer is the only claimant: the dirty tiles as they are.
    public func claimDirtyMapTiles(limit: Int) async throws -> [DirtyTile] { try await dirtyMapTiles(limit: limit) }

    @discardableResult
    public func storeMapTile(_ remade: RemadeTile) async throws -> Bool { try await storeMapTiles([remade])[0] }

    /// In one transaction: one synced commit for the pass's tiles, not one each.
    public func storeMapTiles(_ remade: [RemadeTile]) async throws -> [Bool] {
        try await pool.write { db in try remade.map { try Self.store($0, db) } }
    }

    private static func store(_ remade: RemadeTile, _ db: Database) throws -> Bool {
        let (tile, slice, links) = (remade.tile, remade.slice, remade.links)
        try db.execute(
            sql: "DELETE FROM map_dirty WHERE tile_row = ? AND tile_column = ? AND version = ?",
            arguments: [tile.tile.row, tile.tile.column, tile.version])
        guard db.changesCount == 1 else { return false }
        try db.execute(sql: "INSERT OR REPLACE INTO map_tiles VALUES (?, ?, ?)", arguments: [tile.tile.row, tile.tile.column, slice])
        // Written only when they changed: its triggers move the routing version (schema step v18).
        if let obstacles = try remade.routingObstacles {
            try db.execute(
                sql: """
                    INSERT INTO routing_obstacles VALUES (?, ?, ?) ON CONFLICT (tile_row, tile_column)
                    DO UPDATE SET obstacles = excluded.obstacles WHERE obstacles IS NOT excluded.obstacles
                    """,
                arguments: [tile.tile.row, tile.tile.column, obstacles])
        } else {
            try db.execute(
                sql: "DELETE FROM routing_obstacles WHERE tile_row = ? AND tile_column = ?", arguments: [tile.tile.row, tile.tile.column])
        }
        try db.execute(
            sql: "UPDATE map_links SET obstacles = 0, obstacle_confidence = 0 WHERE tile_row = ? AND tile_column = ? AND obstacles > 0",
            arguments: [tile.tile.row, tile.tile.column])
        let obstacles = try db.cachedStatement(
            sql: "UPDATE map_links SET obstacles = ?, obstacle_confidence = ? WHERE id = ? AND tile_row = ? AND tile_column = ?")
        for (id, o) in links {
            try obstacles.execute(arguments: [o.count, o.confidence, id, tile.tile.row, tile.tile.column])
        }
        return true
    }

    public func mapSlices(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data] {
        try await pool.read { db in
            try Data.fetchAll(
                db,
                sql:
                    "SELECT slice FROM map_tiles WHERE tile_row BETWEEN ? AND ? AND tile_column BETWEEN ? AND ? ORDER BY tile_row, tile_column",
                arguments: [rows.lowerBound, rows.upperBound, columns.lowerBound, columns.upperBound])
        }
    }

    public func routingObstacles(rows: ClosedRange<Int>, columns: ClosedRange<Int>) async throws -> [Data] {
        try await pool.read { db in
            try Data.fetchAll(
                db,
                sql: """
                    SELECT obstacles FROM routing_obstacles WHERE tile_row BETWEEN ? AND ? AND tile_column BETWEEN ? AND ?
                    ORDER BY tile_row, tile_column
                    """,
                arguments: [rows.lowerBound, rows.upperBound, columns.lowerBound, columns.upperBound])
        }
    }

    public func mapEdition() async throws -> String? {
        try await pool.read { db in try String.fetchOne(db, sql: "SELECT value FROM map_edition") }
    }

    public func setMapEdition(_ edition: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM map_edition")
            try db.execute(sql: "INSERT INTO map_edition VALUES (?)", arguments: [edition])
        }
    }

    public func mapTilesInUse() async throws -> [MapGrid.Cell] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT tile_row, tile_column FROM map_tiles UNION SELECT tile_row, tile_column FROM map_tile_records"
            ).map { MapGrid.Cell(row: $0["tile_row"], column: $0["tile_column"]) }
        }
    }

    private static func deviceRows(_ db: Database) throws -> [DeviceRow] {
        try Row.fetchAll(db, sql: "SELECT device_id, token_sha256, revoked, managed_by FROM devices ORDER BY device_id").map {
            DeviceRow(
                device: $0["device_id"], tokenSHA256: $0["token_sha256"], revoked: ($0["revoked"] as Int) != 0,
                managedBy: TokenManager(rawValue: $0["managed_by"]) ?? .file)
        }
    }
}
