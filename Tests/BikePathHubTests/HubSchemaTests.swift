import BikePathTestSupport
import Foundation
import GRDB
import Testing

@testable import BikePathHub

/// The hub's one schema (`HubSchema`): both stores, migrated, have the same tables,
/// columns and indexes, but for the items `HubSchema.dialectOnly` declares; and a hub an
/// earlier build migrated keeps its rows when this build migrates it.
@Suite(.serialized, .ownThreads, .enabled(if: Backend.available.contains(.postgres)))
struct HubSchemaTests {
    /// A schema as sets of lines, so that a difference reads as the lines one side lacks:
    /// "table.column type null|not null" and "index table(columns) [unique]". Primary keys
    /// are left out of the indexes (each dialect builds its own), the rest compare by table,
    /// columns and uniqueness: SQLite names a UNIQUE constraint's index sqlite_autoindex_…,
    /// PostgreSQL …_key.
    struct Shape: Equatable {
        var columns: Set<String> = []
        var indexes: Set<String> = []

        /// The lines only `self` has, and only `other` has.
        func difference(_ other: Shape) -> (mine: [String], theirs: [String]) {
            let a = columns.union(indexes), b = other.columns.union(other.indexes)
            return (a.subtracting(b).sorted(), b.subtracting(a).sorted())
        }
    }

    /// Column types by storage class, the documented mapping: PostgreSQL's `integer`,
    /// `bigint` and `boolean` (SQLite keeps a flag as 0/1) are SQLite's INTEGER; `double
    /// precision` is REAL; `text` and `timestamp with time zone` (SQLite keeps ISO 8601 text)
    /// are TEXT; `bytea` is BLOB. Anything else keeps its own name, and so differs.
    static func storageClass(postgres type: String) -> String {
        switch type {
        case "integer", "bigint", "boolean": "integer"
        case "double precision": "real"
        case "text", "timestamp with time zone": "text"
        case "bytea": "blob"
        default: type
        }
    }

    static func storageClass(sqlite type: String) -> String { type.lowercased() }

    /// Whether a line of a dialect's shape is one `HubSchema.dialectOnly` declares for it.
    static func declared(_ dialect: HubSchema.Dialect, table: String, columns: [String], index: Bool = false) -> Bool {
        HubSchema.dialectOnly.contains { item in
            item.dialect == dialect && item.table == table && (item.column.map(columns.contains) ?? true) && (index || !item.indexOnly)
        }
    }

    static func shape(sqlite path: String) throws -> Shape {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            var shape = Shape()
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
            for table in tables where !declared(.sqlite, table: table, columns: []) {
                for row in try Row.fetchAll(db, sql: #"SELECT name, type, "notnull", pk FROM pragma_table_info(?)"#, arguments: [table]) {
                    let column: String = row[0]
                    guard !declared(.sqlite, table: table, columns: [column]) else { continue }
                    // A primary key's column is never NULL (SQLite's rowid alias reports notnull 0).
                    let notNull = (row[2] as Int) != 0 || (row[3] as Int) > 0
                    shape.columns.insert("\(table).\(column) \(storageClass(sqlite: row[1])) \(notNull ? "not null" : "null")")
                }
                for row in try Row.fetchAll(db, sql: #"SELECT name, "unique", origin FROM pragma_index_list(?)"#, arguments: [table])
                where (row[2] as String) != "pk" {
                    let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [row[0]])
                    guard !declared(.sqlite, table: table, columns: columns, index: true) else { continue }
                    shape.indexes.insert("index \(table)(\(columns.joined(separator: ",")))\((row[1] as Int) != 0 ? " unique" : "")")
                }
            }
            return shape
        }
    }

    /// The tables of `public` but those an extension owns (PostGIS's spatial_ref_sys).
    static func shape(postgres database: String) throws -> Shape {
        let cluster = try PostgresCluster.shared.get()
        let ownTables = """
            SELECT t.oid, t.relname FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = 'public' AND t.relkind = 'r' AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = t.oid AND d.deptype = 'e')
            """
        var shape = Shape()
        for line in try cluster.psql(
            """
            WITH own AS (\(ownTables))
            SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c JOIN own ON own.relname = c.table_name
            WHERE c.table_schema = 'public'
            """, database: database
        ).split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            guard !declared(.postgres, table: f[0], columns: []), !declared(.postgres, table: f[0], columns: [f[1]]) else { continue }
            shape.columns.insert("\(f[0]).\(f[1]) \(storageClass(postgres: f[2])) \(f[3] == "NO" ? "not null" : "null")")
        }
        for line in try cluster.psql(
            """
            WITH own AS (\(ownTables))
            SELECT own.relname, ix.indisunique, string_agg(a.attname, ',' ORDER BY k.ord)
            FROM pg_index ix JOIN own ON own.oid = ix.indrelid
            CROSS JOIN LATERAL unnest(ix.indkey) WITH ORDINALITY AS k(attnum, ord)
            JOIN pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
            WHERE NOT ix.indisprimary GROUP BY ix.indexrelid, own.relname, ix.indisunique
            """, database: database
        ).split(separator: "\n") {
            let f = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let columns = f[2].split(separator: ",").map(String.init)
            guard !declared(.postgres, table: f[0], columns: []), !declared(.postgres, table: f[0], columns: columns, index: true) else {
                continue
            }
            shape.indexes.insert("index \(f[0])(\(f[2]))\(f[1] == "t" ? " unique" : "")")
        }
        return shape
    }

    static func migratedFresh(_ backend: Backend, _ dir: TempDir) async throws -> Shape {
        let storage = try backend.storage(dir)
        try await storage.withStore(logger: Fixtures.logger) { store in try await store.migrate() }
        switch storage {
        case .sqlite(let path): return try shape(sqlite: path)
        case .postgres(let url): return try shape(postgres: database(url))
        }
    }

    static func database(_ url: String) throws -> String { String(try #require(URLComponents(string: url)).path.dropFirst()) }

    /// Fails on a column, a table or an index one side has and the other has not, unless
    /// declared: shown at the end by adding a column to the SQLite side only.
    @Test(.timeLimitOnceRunning(.minutes(2)))
    func bothStoresMigrateToOneSchema() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let sqlite = try await Self.migratedFresh(.sqlite, dir)
        let postgres = try await Self.migratedFresh(.postgres, dir)
        let (onlySQLite, onlyPostgres) = sqlite.difference(postgres)
        #expect(onlySQLite == [] && onlyPostgres == [], "only on SQLite: \(onlySQLite); only on PostgreSQL: \(onlyPostgres)")
        // Today 161 columns in 28 tables (to v20-place-keys): the comparison saw the whole schema.
        #expect(
            sqlite.columns.count >= 110 && sqlite.indexes.count >= 6, "\(sqlite.columns.count) columns, \(sqlite.indexes.count) indexes")

        // A column on one side only is a difference.
        let queue = try DatabaseQueue(path: dir.file("hub.sqlite"))
        try await queue.write { db in try db.execute(sql: "ALTER TABLE map_tiles ADD COLUMN made_at TEXT") }
        try queue.close()
        #expect(try Self.shape(sqlite: dir.file("hub.sqlite")).difference(postgres).mine == ["map_tiles.made_at text null"])
    }

    /// Each step has one name, and a name an earlier build recorded means one step only.
    @Test func namesAreOneEach() {
        let names = HubSchema.steps.map(\.name)
        #expect(Set(names).count == names.count)
        for dialect in HubSchema.Dialect.allCases {
            let former = HubSchema.steps.compactMap { $0.formerly[dialect] }
            #expect(Set(former).count == former.count && HubSchema.formerNames(dialect).isDisjoint(with: names), "\(dialect)")
        }
    }

    static func fixture(_ dialect: HubSchema.Dialect) throws -> String {
        try String(contentsOfFile: Paths.root + "/Tests/BikePathHubTests/Fixtures/hub-017af10.\(dialect).sql", encoding: .utf8)
    }

    /// An SQLite hub as the build of 017af10 left it (its eight migration names, with
    /// `received_utc` and 3-column map_stretch_riders): migrated, it has today's schema,
    /// every row, and stores a new record.
    @Test(.timeLimitOnceRunning(.minutes(2)))
    func anSQLiteHubOfTheEarlierSchemaKeepsItsRows() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("old.sqlite")
        let old = try DatabaseQueue(path: path)
        try await old.writeWithoutTransaction { db in try db.execute(sql: try Self.fixture(.sqlite)) }
        try old.close()
        chmod(path, 0o600)  // as the store makes its file: else it warns that others can read it

        try await HubStorage.sqlite(path: path).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            #expect(try await store.appliedMigrations() == HubSchema.steps.map(\.name))
            let created = try await store.put(device: "rider-a", records: [(.sos, "sos-2", Data("{}".utf8))])
            #expect(created.map(\.outcome) == [.created])
        }
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        try await queue.read { db in
            #expect(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations").sorted() == HubSchema.steps.map(\.name).sorted())
            let records = try Row.fetchAll(db, sql: "SELECT device_id, id, sha256, received_at FROM records ORDER BY device_id, id")
            #expect(records.count == 3)
            #expect(records[0] == ["device_id": "rider-a", "id": "sos-1", "sha256": "a3f1", "received_at": "2026-11-27T10:00:00Z"])
            #expect(records[2] == ["device_id": "rider-b", "id": "draft-1", "sha256": "b4e2", "received_at": "2026-11-27T11:30:00Z"])
            #expect(
                try String.fetchAll(db, sql: "SELECT device_id || ' ' || managed_by FROM devices") == ["rider-a file", "rider-b command"])
            #expect(
                try Row.fetchOne(db, sql: "SELECT updates, received_at FROM live_positions") == [
                    "updates": 3, "received_at": "2026-11-27T12:00:00Z",
                ])
            #expect(try Int.fetchOne(db, sql: "SELECT value FROM map_counter") == 7)
            #expect(try Int.fetchOne(db, sql: "SELECT attempts FROM map_attempts WHERE id = 'c-1'") == 2)
            for row in try Row.fetchAll(db, sql: "SELECT tile_row, tile_column, cell_row, cell_column FROM map_stretch_riders") {
                let tile = MapEvidence.tile(ofStretchCell: MapGrid.Cell(row: row[2], column: row[3]))
                #expect(tile == MapGrid.Cell(row: row[0], column: row[1]))
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM map_stretch_riders") == 2)
        }
        let fresh = try await Self.migratedFresh(.sqlite, dir)
        #expect(try Self.shape(sqlite: path) == fresh)
    }

    /// A PostgreSQL hub as the build of 017af10 left it (its ten migration names): migrated,
    /// it has today's schema and every row, and keeps the names that build recorded, so that
    /// a replica of it starting beside this one finds nothing to migrate.
    @Test(.timeLimitOnceRunning(.minutes(2)))
    func aPostgresHubOfTheEarlierSchemaKeepsItsRows() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let database = try Self.database(url)
        try cluster.psql(try Self.fixture(.postgres), database: database)
        let earlier = try cluster.psql("SELECT version FROM hub_migrations ORDER BY version", database: database)

        try await HubStorage.postgres(url: url).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            #expect(try await store.appliedMigrations() == HubSchema.steps.map(\.name))
            let created = try await store.put(device: "rider-a", records: [(.sos, "sos-2", Data("{}".utf8))])
            #expect(created.map(\.outcome) == [.created])
        }
        let names = try cluster.psql("SELECT version FROM hub_migrations", database: database).split(separator: "\n").map(String.init)
        #expect(Set(names) == Set(HubSchema.steps.map(\.name)).union(earlier.split(separator: "\n").map(String.init)))
        #expect(
            try cluster.psql(
                """
                SELECT device_id, id, sha256, received_at = '2026-11-27T10:00:00Z' FROM records WHERE id = 'sos-1'
                UNION ALL SELECT device_id, id, sha256, received_at = '2026-11-27T11:30:00Z' FROM records WHERE id = 'draft-1'
                """, database: database) == "rider-a|sos-1|a3f1|t\nrider-b|draft-1|b4e2|t\n")
        #expect(
            try cluster.psql("SELECT count(*) FROM records; SELECT count(*) FROM map_stretch_riders", database: database) == "3\n2\n")
        #expect(try Self.shape(postgres: database) == (try await Self.migratedFresh(.postgres, dir)))
    }
}
