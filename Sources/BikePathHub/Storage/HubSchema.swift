import Foundation
import GRDB
import Logging
import PostgresNIO

/// The hub's one schema: ONE ordered list of steps, each with one name and both dialects'
/// SQL side by side, so a table changes on one store only together with the other.
/// `SchemaEqualityTests` holds the two migrated schemas equal (tables, columns, indexes)
/// minus `dialectOnly`. A new schema change is a new step at the end; an applied step is
/// never edited.
enum HubSchema {
    enum Dialect: String, Sendable, CaseIterable { case sqlite, postgres }

    struct Step: Sendable {
        let name: String
        /// The name each dialect applied this step under before the list was one (GRDB's
        /// `grdb_migrations`, PostgreSQL's `hub_migrations`): a hub migrated by an earlier
        /// build has it recorded there, and the step is then taken as applied.
        var formerly: [Dialect: String] = [:]
        var sqlite: [String] = []
        var postgres: [String] = []
        /// Run after the step's SQL, in its transaction: what SQL alone cannot do.
        var sqliteProgram: (@Sendable (Database) throws -> Void)? = nil
        var postgresProgram: (@Sendable (PostgresConnection, Logger) async throws -> Void)? = nil
        /// Extensions the PostgreSQL SQL creates, and the Debian package that has each.
        var extensions: [(name: String, package: String)] = []
    }

    /// A table, column or index one dialect has and the other has not, by design; `reason` says why.
    struct DialectOnly: Sendable {
        let dialect: Dialect
        let table: String
        /// nil: the whole table.
        let column: String?
        let reason: String
        /// Only the index over `column` is this dialect's; both have the column.
        var indexOnly = false
    }

    static let dialectOnly: [DialectOnly] = [
        DialectOnly(dialect: .sqlite, table: "grdb_migrations", column: nil, reason: "GRDB's record of applied steps"),
        DialectOnly(dialect: .postgres, table: "hub_migrations", column: nil, reason: "the record of applied steps"),
        DialectOnly(
            dialect: .sqlite, table: "map_counter", column: nil,
            reason: "the dirty marks' version counter; PostgreSQL has the sequence map_dirty_version"),
        DialectOnly(
            dialect: .postgres, table: "map_dirty", column: "claimed_until",
            reason: "replicas claim tiles for a while; an SQLite file has one hub, its maintainer the only claimant"),
        DialectOnly(
            dialect: .postgres, table: "map_network_state", column: "lease_holder",
            reason: "one replica extends the network at a time; an SQLite file has one hub"),
        DialectOnly(dialect: .postgres, table: "map_network_state", column: "leased_until", reason: "as lease_holder"),
        DialectOnly(
            dialect: .postgres, table: "map_nodes", column: "geom",
            reason: "PostGIS point behind the GiST index for nearest-node searches"),
        DialectOnly(
            dialect: .postgres, table: "map_links", column: "geom", reason: "PostGIS line behind the GiST index for bounding-box reads"),
        DialectOnly(
            dialect: .postgres, table: "map_links", column: "cost",
            reason: "pgRouting's edge cost, kept per link; SQLite's route search computes it"),
        DialectOnly(
            dialect: .postgres, table: "streets", column: "geom", reason: "PostGIS line behind the GiST index for bounding-box reads"),
        DialectOnly(
            dialect: .postgres, table: "places", column: "key",
            reason: "pg_trgm's GIN index of the names' trigram keys; SQLite's is the FTS5 table places_fts", indexOnly: true),
        // FTS5 keeps its index as a virtual table and four tables of its own (the text is
        // `places.key`: external content); PostgreSQL's trigram index is an index of `places`.
        DialectOnly(dialect: .sqlite, table: "places_fts", column: nil, reason: ftsIndex),
        DialectOnly(dialect: .sqlite, table: "places_fts_data", column: nil, reason: ftsIndex),
        DialectOnly(dialect: .sqlite, table: "places_fts_idx", column: nil, reason: ftsIndex),
        DialectOnly(dialect: .sqlite, table: "places_fts_docsize", column: nil, reason: ftsIndex),
        DialectOnly(dialect: .sqlite, table: "places_fts_config", column: nil, reason: ftsIndex),
    ]
    static let ftsIndex = "FTS5's trigram index of the places' keys"

    static let steps: [Step] = [
        Step(
            name: "v1",
            sqlite: [
                """
                CREATE TABLE devices (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    token_sha256 TEXT NOT NULL UNIQUE,
                    revoked INTEGER NOT NULL DEFAULT 0
                );
                CREATE TABLE records (
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    kind TEXT NOT NULL CHECK (kind IN ('sos', 'confirmation', 'draft', 'trip')),
                    id TEXT NOT NULL,
                    sha256 TEXT NOT NULL,       -- of the canonical body; equality means "identical"
                    body BLOB NOT NULL,         -- canonical JSON
                    received_utc TEXT NOT NULL,
                    PRIMARY KEY (device_id, kind, id)
                ) WITHOUT ROWID;
                CREATE VIEW published AS SELECT device_id, id AS draft_id, received_utc FROM records WHERE kind = 'confirmation';
                CREATE TABLE live_positions (
                    device_id TEXT PRIMARY KEY NOT NULL,
                    body BLOB NOT NULL,
                    updates INTEGER NOT NULL DEFAULT 1,
                    received_utc TEXT NOT NULL
                );
                """
            ],
            postgres: [
                """
                CREATE TABLE devices (
                    device_id TEXT PRIMARY KEY,
                    token_sha256 TEXT NOT NULL UNIQUE,
                    revoked BOOLEAN NOT NULL DEFAULT false,
                    managed_by TEXT NOT NULL DEFAULT 'file' CHECK (managed_by IN ('file', 'command'))
                )
                """,
                """
                CREATE TABLE records (
                    device_id TEXT NOT NULL REFERENCES devices(device_id),
                    kind TEXT NOT NULL CHECK (kind IN ('sos', 'confirmation', 'draft', 'trip')),
                    id TEXT NOT NULL,
                    sha256 TEXT NOT NULL,
                    body BYTEA NOT NULL,
                    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
                    PRIMARY KEY (device_id, kind, id)
                )
                """,
                "CREATE INDEX records_by_kind ON records (kind)",
                """
                CREATE TABLE live_positions (
                    device_id TEXT PRIMARY KEY,
                    body BYTEA NOT NULL,
                    updates BIGINT NOT NULL DEFAULT 1,
                    received_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
            ]),
        // Who manages a device's token: the tokens file ('file') or `bikepath-hub token`
        // ('command'); docs/sync.md, "Device tokens". Devices from before are taken as
        // 'file'. PostgreSQL's v1 has the column already.
        Step(
            name: "v2-token-manager",
            sqlite: [
                "ALTER TABLE devices ADD COLUMN managed_by TEXT NOT NULL DEFAULT 'file' CHECK (managed_by IN ('file', 'command'))"
            ]),
        // The shared map a tile at a time (docs/hub.md, "The map in the database"). Existing
        // confirmations are indexed by the map maintainer at start (none is in map_indexed).
        // One counter for dirty marks (a table on SQLite, a sequence on PostgreSQL): a tile
        // marked, cleaned and marked again never reuses a version.
        Step(
            name: "v3-map-tiles",
            formerly: [.postgres: "v2-map-tiles"],
            sqlite: [
                """
                CREATE TABLE map_tile_records (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, device_id TEXT NOT NULL, id TEXT NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, device_id, id)
                ) WITHOUT ROWID;
                CREATE TABLE map_indexed (device_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (device_id, id)) WITHOUT ROWID;
                CREATE TABLE map_dirty (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, version INTEGER NOT NULL,
                    PRIMARY KEY (tile_row, tile_column)
                ) WITHOUT ROWID;
                CREATE TABLE map_tiles (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, slice BLOB NOT NULL,
                    PRIMARY KEY (tile_row, tile_column)
                ) WITHOUT ROWID;
                CREATE TABLE map_counter (value INTEGER NOT NULL);
                INSERT INTO map_counter VALUES (0);
                """
            ],
            postgres: [
                """
                CREATE TABLE map_tile_records (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, device_id TEXT NOT NULL, id TEXT NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, device_id, id)
                )
                """,
                "CREATE TABLE map_indexed (device_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (device_id, id))",
                """
                CREATE TABLE map_dirty (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, version BIGINT NOT NULL, PRIMARY KEY (tile_row, tile_column)
                )
                """,
                "CREATE TABLE map_tiles (tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, slice BYTEA NOT NULL, PRIMARY KEY (tile_row, tile_column))",
                "CREATE SEQUENCE map_dirty_version",
            ]),
        // The community path network (docs/hub.md, "The community path network"): a queue in
        // arrival order (confirmations indexed before it join in key order), the nodes, the
        // links with their evidence (pgRouting's shape: id, source, target, a cost from
        // length_m and the evidence), and which riders rode each link. PostgreSQL adds PostGIS
        // geometries with GiST indexes: bounding-box reads and nearest-node searches go
        // through them, and pgRouting reads map_links as it is.
        Step(
            name: "v4-path-network",
            formerly: [.postgres: "v3-path-network"],
            sqlite: [
                """
                CREATE TABLE map_network_queue (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, device_id TEXT NOT NULL, id TEXT NOT NULL, UNIQUE (device_id, id)
                );
                INSERT INTO map_network_queue (device_id, id) SELECT device_id, id FROM map_indexed ORDER BY device_id, id;
                CREATE TABLE map_network_state (applied INTEGER NOT NULL, next_node INTEGER NOT NULL);
                INSERT INTO map_network_state VALUES (0, 1);
                CREATE TABLE map_nodes (
                    id INTEGER PRIMARY KEY, lat REAL NOT NULL, lon REAL NOT NULL, tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL
                );
                CREATE INDEX map_nodes_by_tile ON map_nodes (tile_row, tile_column);
                CREATE TABLE map_links (
                    id INTEGER PRIMARY KEY AUTOINCREMENT, source INTEGER NOT NULL, target INTEGER NOT NULL,
                    from_lat REAL NOT NULL, from_lon REAL NOT NULL, to_lat REAL NOT NULL, to_lon REAL NOT NULL,
                    length_m REAL NOT NULL, trips INTEGER NOT NULL, riders INTEGER NOT NULL, last_day INTEGER,
                    rated_optimal INTEGER NOT NULL, rated_medium INTEGER NOT NULL, rated_sufficient INTEGER NOT NULL,
                    rated_requires_maintenance INTEGER NOT NULL,
                    obstacles INTEGER NOT NULL DEFAULT 0, obstacle_confidence REAL NOT NULL DEFAULT 0,
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL,
                    UNIQUE (source, target)
                );
                CREATE INDEX map_links_by_tile ON map_links (tile_row, tile_column);
                CREATE TABLE map_link_riders (link INTEGER NOT NULL, device_id TEXT NOT NULL, PRIMARY KEY (link, device_id)) WITHOUT ROWID;
                """
            ],
            postgres: [
                "CREATE EXTENSION IF NOT EXISTS postgis",
                "CREATE EXTENSION IF NOT EXISTS pgrouting",
                "CREATE TABLE map_network_queue (seq BIGSERIAL PRIMARY KEY, device_id TEXT NOT NULL, id TEXT NOT NULL, UNIQUE (device_id, id))",
                "INSERT INTO map_network_queue (device_id, id) SELECT device_id, id FROM map_indexed ORDER BY device_id, id",
                "CREATE TABLE map_network_state (applied BIGINT NOT NULL, next_node BIGINT NOT NULL)",
                "INSERT INTO map_network_state VALUES (0, 1)",
                """
                CREATE TABLE map_nodes (
                    id BIGINT PRIMARY KEY, lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL,
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, geom geometry(Point, 4326) NOT NULL
                )
                """,
                "CREATE INDEX map_nodes_by_tile ON map_nodes (tile_row, tile_column)",
                "CREATE INDEX map_nodes_geom ON map_nodes USING GIST (geom)",
                """
                CREATE TABLE map_links (
                    id BIGSERIAL PRIMARY KEY, source BIGINT NOT NULL, target BIGINT NOT NULL,
                    from_lat DOUBLE PRECISION NOT NULL, from_lon DOUBLE PRECISION NOT NULL,
                    to_lat DOUBLE PRECISION NOT NULL, to_lon DOUBLE PRECISION NOT NULL,
                    length_m DOUBLE PRECISION NOT NULL, trips INTEGER NOT NULL, riders INTEGER NOT NULL, last_day INTEGER,
                    rated_optimal INTEGER NOT NULL, rated_medium INTEGER NOT NULL, rated_sufficient INTEGER NOT NULL,
                    rated_requires_maintenance INTEGER NOT NULL,
                    obstacles INTEGER NOT NULL DEFAULT 0, obstacle_confidence DOUBLE PRECISION NOT NULL DEFAULT 0,
                    cost DOUBLE PRECISION NOT NULL DEFAULT 0,
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, geom geometry(LineString, 4326) NOT NULL,
                    UNIQUE (source, target)
                )
                """,
                "CREATE INDEX map_links_by_tile ON map_links (tile_row, tile_column)",
                "CREATE INDEX map_links_geom ON map_links USING GIST (geom)",
                "CREATE TABLE map_link_riders (link BIGINT NOT NULL, device_id TEXT NOT NULL, PRIMARY KEY (link, device_id))",
            ],
            extensions: [(name: "postgis", package: "postgresql-15-postgis-3"), (name: "pgrouting", package: "postgresql-15-pgrouting")]),
        // Replicas claim dirty tiles for a while (`claimDirtyMapTiles`) instead of each
        // recomputing all of them. PostgreSQL only (`dialectOnly`).
        Step(
            name: "v5-map-claims", formerly: [.postgres: "v4-map-claims"],
            postgres: ["ALTER TABLE map_dirty ADD COLUMN claimed_until TIMESTAMPTZ"]),
        // The edition of the rule the stored tiles were made by (`MapTiles.edition`): a hub
        // with another remakes every tile once. Empty here, so that the tiles of a hub
        // upgraded to this step are remade by today's rule.
        Step(
            name: "v6-map-edition", formerly: [.sqlite: "v5-map-edition", .postgres: "v5-map-edition"],
            sqlite: ["CREATE TABLE map_edition (value TEXT NOT NULL)"], postgres: ["CREATE TABLE map_edition (value TEXT NOT NULL)"]),
        // The map's evidence as sums (docs/hub.md, "The map's evidence"). Filled by indexing:
        // the rule's edition changed with it, so the maintainer's first pass forgets which
        // confirmations were indexed and indexes each again (`resetMapEvidence`).
        // map_stretch_riders got its tile columns on SQLite only in v12-one-schema.
        Step(
            name: "v7-map-evidence", formerly: [.sqlite: "v6-map-evidence", .postgres: "v6-map-evidence"],
            sqlite: [
                """
                CREATE TABLE map_passes (
                    cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL, sector INTEGER NOT NULL, rides INTEGER NOT NULL,
                    PRIMARY KEY (cell_row, cell_column, sector)
                ) WITHOUT ROWID;
                CREATE TABLE map_reports (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    sector INTEGER NOT NULL, kind TEXT NOT NULL, device_id TEXT NOT NULL, reports INTEGER NOT NULL,
                    lat_sum INTEGER NOT NULL, lon_sum INTEGER NOT NULL, axis_x INTEGER NOT NULL, axis_y INTEGER NOT NULL,
                    first_day INTEGER, last_day INTEGER,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, sector, kind, device_id)
                ) WITHOUT ROWID;
                CREATE TABLE map_stretches (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    status TEXT NOT NULL, length_mm INTEGER NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, status)
                ) WITHOUT ROWID;
                CREATE TABLE map_status_riders (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    riders INTEGER NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column)
                ) WITHOUT ROWID;
                CREATE TABLE map_stretch_riders (
                    cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL, device_id TEXT NOT NULL,
                    PRIMARY KEY (cell_row, cell_column, device_id)
                ) WITHOUT ROWID;
                """
            ],
            postgres: [
                """
                CREATE TABLE map_passes (
                    cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL, sector INTEGER NOT NULL, rides INTEGER NOT NULL,
                    PRIMARY KEY (cell_row, cell_column, sector)
                )
                """,
                """
                CREATE TABLE map_reports (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    sector INTEGER NOT NULL, kind TEXT NOT NULL, device_id TEXT NOT NULL, reports INTEGER NOT NULL,
                    lat_sum BIGINT NOT NULL, lon_sum BIGINT NOT NULL, axis_x BIGINT NOT NULL, axis_y BIGINT NOT NULL,
                    first_day INTEGER, last_day INTEGER,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, sector, kind, device_id)
                )
                """,
                """
                CREATE TABLE map_stretches (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    status TEXT NOT NULL, length_mm BIGINT NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column, status)
                )
                """,
                """
                CREATE TABLE map_status_riders (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    riders INTEGER NOT NULL,
                    PRIMARY KEY (tile_row, tile_column, cell_row, cell_column)
                )
                """,
                """
                CREATE TABLE map_stretch_riders (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    device_id TEXT NOT NULL,
                    PRIMARY KEY (cell_row, cell_column, device_id)
                )
                """,
            ]),
        // One replica extends the network at a time (`claimNetwork`): both computed every
        // batch, and the second's commit was thrown away. PostgreSQL only (`dialectOnly`).
        Step(
            name: "v8-network-lease", formerly: [.postgres: "v7-network-lease"],
            postgres: [
                "ALTER TABLE map_network_state ADD COLUMN lease_holder TEXT",
                "ALTER TABLE map_network_state ADD COLUMN leased_until TIMESTAMPTZ",
            ]),
        // Room in each page for a row's next version: every batch adds to the sums of rows
        // already held (a link's trips, a cell's passes), and a full page made each update
        // a new entry in every index, GiST included. With room the update stays in its page
        // (HOT): a 64-ride batch's link upsert took 22 ms instead of 50, its passes 40 instead
        // of 48. (It applies to pages filled from now on; `VACUUM FULL` rewrites the older
        // ones.) A storage setting, not a column: SQLite has no such thing.
        Step(
            name: "v9-update-room", formerly: [.postgres: "v8-update-room"],
            postgres: ["ALTER TABLE map_links SET (fillfactor = 70)", "ALTER TABLE map_passes SET (fillfactor = 70)"]),
        // Indexing attempts of confirmations not indexed yet, and the reason of each set aside
        // (`HubStore.countIndexingAttempt`): a record that stopped every pass, or killed the
        // hub, is tried a bounded number of times, never for ever.
        Step(
            name: "v10-map-attempts", formerly: [.sqlite: "v7-map-attempts", .postgres: "v9-map-attempts"],
            sqlite: [
                """
                CREATE TABLE map_attempts (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, attempts INTEGER NOT NULL, set_aside TEXT,
                    PRIMARY KEY (device_id, id)
                ) WITHOUT ROWID
                """
            ],
            postgres: [
                """
                CREATE TABLE map_attempts (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, attempts INTEGER NOT NULL, set_aside TEXT,
                    PRIMARY KEY (device_id, id)
                )
                """
            ]),
        // Bodies stored in the pre-release camelCase keys rewritten in today's snake_case
        // (`SnakeCaseBodies`): no SQL, a program.
        Step(
            name: "v11-snake-case-bodies", formerly: [.sqlite: "v8-snake-case-bodies", .postgres: "v10-snake-case-bodies"],
            sqliteProgram: SQLiteHubStore.rewriteBodiesInSnakeCase, postgresProgram: PostgresHubStore.rewriteBodiesInSnakeCase),
        // The two schemas made one (SQLite catches up; PostgreSQL had these already):
        // - records' and live_positions' `received_utc` is `received_at` (the same ISO 8601
        //   text; PostgreSQL's is a TIMESTAMPTZ);
        // - map_stretch_riders has the tile of each cell, as PostgreSQL's (filled by the
        //   program: a cell's tile is `MapEvidence.tile(ofStretchCell:)`, not SQL);
        // - records_by_kind: the map's reads of every confirmation (`WHERE kind = …`);
        // - the view `published` goes: nothing read it, and PostgreSQL never had it.
        Step(
            name: "v12-one-schema",
            sqlite: [
                """
                DROP VIEW published;
                ALTER TABLE records RENAME COLUMN received_utc TO received_at;
                ALTER TABLE live_positions RENAME COLUMN received_utc TO received_at;
                CREATE INDEX records_by_kind ON records (kind);
                CREATE TABLE map_stretch_riders_v12 (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, cell_row INTEGER NOT NULL, cell_column INTEGER NOT NULL,
                    device_id TEXT NOT NULL,
                    PRIMARY KEY (cell_row, cell_column, device_id)
                ) WITHOUT ROWID;
                """
            ],
            sqliteProgram: SQLiteHubStore.addTilesToStretchRiders),
        // The streets of an OpenStreetMap extract (`bikepath-hub import-osm`; docs/hub.md,
        // "Streets"): edges keyed by (way, from node, to node), which a re-import keeps. A
        // box's columns for SQLite's reads; PostgreSQL adds a PostGIS line with a GiST index.
        Step(
            name: "v13-streets",
            sqlite: [
                """
                CREATE TABLE streets (
                    way_id INTEGER NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL,
                    points TEXT NOT NULL, length_m REAL NOT NULL, highway TEXT NOT NULL, name TEXT, surface TEXT, smoothness TEXT,
                    cycleway_left TEXT, cycleway_right TEXT, bicycle TEXT,
                    direction TEXT NOT NULL CHECK (direction IN ('both', 'forward', 'backward')),
                    south REAL NOT NULL, west REAL NOT NULL, north REAL NOT NULL, east REAL NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node)
                ) WITHOUT ROWID;
                CREATE INDEX streets_by_box ON streets (west, south);
                """
            ],
            postgres: [
                """
                CREATE TABLE streets (
                    way_id BIGINT NOT NULL, from_node BIGINT NOT NULL, to_node BIGINT NOT NULL,
                    points TEXT NOT NULL, length_m DOUBLE PRECISION NOT NULL, highway TEXT NOT NULL, name TEXT, surface TEXT,
                    smoothness TEXT, cycleway_left TEXT, cycleway_right TEXT, bicycle TEXT,
                    direction TEXT NOT NULL CHECK (direction IN ('both', 'forward', 'backward')),
                    south DOUBLE PRECISION NOT NULL, west DOUBLE PRECISION NOT NULL, north DOUBLE PRECISION NOT NULL,
                    east DOUBLE PRECISION NOT NULL, geom geometry(LineString, 4326) NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node)
                )
                """,
                "CREATE INDEX streets_by_box ON streets (west, south)",
                "CREATE INDEX streets_geom ON streets USING GIST (geom)",
            ]),
        // Places by name (`PlaceStore`, docs/hub.md "Places by name"): the OSM import's
        // places, and a trigram index of their names that finds them despite a typo. SQLite:
        // FTS5's trigram tokenizer (SQLite 3.34+) over name, with the key beside it; PostgreSQL:
        // pg_trgm's GIN index, on lower(name) as the candidate query reads it.
        Step(
            name: "v14-places",
            sqlite: [
                """
                CREATE TABLE places (osm_id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, lat REAL NOT NULL, lon REAL NOT NULL);
                CREATE VIRTUAL TABLE places_fts USING fts5(name, osm_id UNINDEXED, tokenize = 'trigram');
                """
            ],
            postgres: [
                "CREATE EXTENSION IF NOT EXISTS pg_trgm",
                """
                CREATE TABLE places (
                    osm_id TEXT PRIMARY KEY, name TEXT NOT NULL, kind TEXT NOT NULL, lat DOUBLE PRECISION NOT NULL, lon DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX places_name_trigrams ON places USING GIN (lower(name) gin_trgm_ops)",
            ],
            extensions: [(name: "pg_trgm", package: "postgresql-15")]),
        // The riders' evidence on the streets (docs/hub.md, "The riders' evidence on the
        // streets"): each confirmed ride matched to the streets adds its trip, rating and
        // roughness to the edges it rode, per direction, and its rider to the edge's riders.
        // Keyed by the street's key, not a reference to `streets`: a re-import replaces the
        // streets and the evidence stays with the keys it keeps.
        Step(
            name: "v15-street-evidence",
            sqlite: [
                """
                CREATE TABLE street_evidence (
                    way_id INTEGER NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL,
                    way TEXT NOT NULL CHECK (way IN ('forward', 'backward')), trips INTEGER NOT NULL, last_day INTEGER,
                    rated_optimal INTEGER NOT NULL, rated_medium INTEGER NOT NULL, rated_sufficient INTEGER NOT NULL,
                    rated_requires_maintenance INTEGER NOT NULL, roughness_sum REAL NOT NULL, roughness_trips INTEGER NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node, way)
                ) WITHOUT ROWID;
                CREATE TABLE street_evidence_riders (
                    way_id INTEGER NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL, device_id TEXT NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node, device_id)
                ) WITHOUT ROWID;
                """
            ],
            postgres: [
                """
                CREATE TABLE street_evidence (
                    way_id BIGINT NOT NULL, from_node BIGINT NOT NULL, to_node BIGINT NOT NULL,
                    way TEXT NOT NULL CHECK (way IN ('forward', 'backward')), trips INTEGER NOT NULL, last_day INTEGER,
                    rated_optimal INTEGER NOT NULL, rated_medium INTEGER NOT NULL, rated_sufficient INTEGER NOT NULL,
                    rated_requires_maintenance INTEGER NOT NULL, roughness_sum DOUBLE PRECISION NOT NULL,
                    roughness_trips INTEGER NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node, way)
                )
                """,
                """
                CREATE TABLE street_evidence_riders (
                    way_id BIGINT NOT NULL, from_node BIGINT NOT NULL, to_node BIGINT NOT NULL, device_id TEXT NOT NULL,
                    PRIMARY KEY (way_id, from_node, to_node, device_id)
                )
                """,
            ]),
        // Manual paths (docs/hub.md, "Manual paths"): a rider's request, keyed as records are
        // (device, id), with the hash that tells the same request from another, and the pieces
        // made of it, each with its street's name and the ridden part's line ("LON LAT,…" as
        // `streets.points`), so a request sent again is answered as it was, whatever the
        // streets are by then. Its rating is added to `street_evidence` in the same transaction.
        Step(
            name: "v16-manual-paths",
            sqlite: [
                """
                CREATE TABLE manual_paths (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, body_sha256 TEXT NOT NULL, body TEXT NOT NULL,
                    status TEXT NOT NULL, day INTEGER NOT NULL,
                    PRIMARY KEY (device_id, id)
                ) WITHOUT ROWID;
                CREATE TABLE manual_path_pieces (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL,
                    way_id INTEGER NOT NULL, from_node INTEGER NOT NULL, to_node INTEGER NOT NULL,
                    way TEXT NOT NULL CHECK (way IN ('forward', 'backward')), from_m REAL NOT NULL, to_m REAL NOT NULL,
                    fraction REAL NOT NULL, name TEXT, points TEXT NOT NULL,
                    PRIMARY KEY (device_id, id, seq)
                ) WITHOUT ROWID;
                """
            ],
            postgres: [
                """
                CREATE TABLE manual_paths (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, body_sha256 TEXT NOT NULL, body TEXT NOT NULL,
                    status TEXT NOT NULL, day INTEGER NOT NULL,
                    PRIMARY KEY (device_id, id)
                )
                """,
                """
                CREATE TABLE manual_path_pieces (
                    device_id TEXT NOT NULL, id TEXT NOT NULL, seq INTEGER NOT NULL,
                    way_id BIGINT NOT NULL, from_node BIGINT NOT NULL, to_node BIGINT NOT NULL,
                    way TEXT NOT NULL CHECK (way IN ('forward', 'backward')), from_m DOUBLE PRECISION NOT NULL,
                    to_m DOUBLE PRECISION NOT NULL, fraction DOUBLE PRECISION NOT NULL, name TEXT, points TEXT NOT NULL,
                    PRIMARY KEY (device_id, id, seq)
                )
                """,
            ]),
        // The routing versions (`RoutingCache`), moved by triggers in the changing transaction
        // so that every writer (the hub, `import-osm` in another process, another replica)
        // moves them. `hard`: the streets changed (an import), and the kept graph is wrong
        // until read again; `soft`: the links, their riders, ratings and obstacles, or the
        // evidence on the streets changed, and the kept graph's costs are a little old. A new
        // input table adds its own trigger. SQLite's triggers are per row (a 1,000-link ride
        // adds ~1,000 one-row updates of a cached page); PostgreSQL's per statement, and
        // once per transaction (`routing_moved`): each UPDATE of the one row leaves a dead
        // version the next one scans past, and a ride's commit runs many statements.
        Step(
            name: "v17-routing-version",
            sqlite: [
                """
                CREATE TABLE routing_version (hard INTEGER NOT NULL, soft INTEGER NOT NULL);
                INSERT INTO routing_version VALUES (0, 0);
                CREATE TRIGGER routing_links_added AFTER INSERT ON map_links BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_links_changed AFTER UPDATE ON map_links BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_links_removed AFTER DELETE ON map_links BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_evidence_added AFTER INSERT ON street_evidence BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_evidence_changed AFTER UPDATE ON street_evidence BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_evidence_removed AFTER DELETE ON street_evidence BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_evidence_riders_added AFTER INSERT ON street_evidence_riders BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_evidence_riders_removed AFTER DELETE ON street_evidence_riders BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_streets_added AFTER INSERT ON streets BEGIN UPDATE routing_version SET hard = hard + 1; END;
                CREATE TRIGGER routing_streets_changed AFTER UPDATE ON streets BEGIN UPDATE routing_version SET hard = hard + 1; END;
                CREATE TRIGGER routing_streets_removed AFTER DELETE ON streets BEGIN UPDATE routing_version SET hard = hard + 1; END;
                """
            ],
            postgres: [
                "CREATE TABLE routing_version (hard BIGINT NOT NULL, soft BIGINT NOT NULL)",
                "INSERT INTO routing_version VALUES (0, 0)",
                // TG_ARGV[0] names the counter; the transaction-local setting keeps it to one UPDATE per transaction and counter.
                """
                CREATE FUNCTION routing_moved() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF current_setting('bikepath.routing_moved_' || TG_ARGV[0], true) IS DISTINCT FROM 'yes' THEN
                        IF TG_ARGV[0] = 'hard' THEN UPDATE routing_version SET hard = hard + 1;
                        ELSE UPDATE routing_version SET soft = soft + 1; END IF;
                        PERFORM set_config('bikepath.routing_moved_' || TG_ARGV[0], 'yes', true);
                    END IF;
                    RETURN NULL;
                END $$
                """,
                """
                CREATE TRIGGER routing_links_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON map_links
                FOR EACH STATEMENT EXECUTE FUNCTION routing_moved('soft')
                """,
                """
                CREATE TRIGGER routing_evidence_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON street_evidence
                FOR EACH STATEMENT EXECUTE FUNCTION routing_moved('soft')
                """,
                """
                CREATE TRIGGER routing_evidence_riders_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON street_evidence_riders
                FOR EACH STATEMENT EXECUTE FUNCTION routing_moved('soft')
                """,
                """
                CREATE TRIGGER routing_streets_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON streets
                FOR EACH STATEMENT EXECUTE FUNCTION routing_moved('hard')
                """,
            ]),
        // The kept graph puts the map's corroborated obstacles on the streets (`StreetLinks`):
        // each tile's, kept apart from its slice (a slice holds every corroborable spot, and
        // hostile uploads make slices of thousands) and rewritten only when they changed,
        // so that a row written moves `soft`. A trigger on the slices themselves moved it on
        // every remade tile, and the graph, rebuilt each time from every slice, held the store
        // long enough that the API's contract test timed out on uploads (10 s). An obstacle
        // corroborated 15 m or more from every community link changes no `map_links` row.
        // The tiles made before this step are marked dirty: the maintainer remakes them and
        // fills the table (a marked tile is remade whatever else it waits for).
        Step(
            name: "v18-routing-obstacles",
            sqlite: [
                """
                CREATE TABLE routing_obstacles (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, obstacles BLOB NOT NULL,
                    PRIMARY KEY (tile_row, tile_column)
                ) WITHOUT ROWID;
                CREATE TRIGGER routing_obstacles_added AFTER INSERT ON routing_obstacles BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_obstacles_changed AFTER UPDATE ON routing_obstacles BEGIN UPDATE routing_version SET soft = soft + 1; END;
                CREATE TRIGGER routing_obstacles_removed AFTER DELETE ON routing_obstacles BEGIN UPDATE routing_version SET soft = soft + 1; END;
                INSERT INTO map_dirty SELECT tile_row, tile_column, (SELECT value FROM map_counter) FROM map_tiles WHERE true
                ON CONFLICT (tile_row, tile_column) DO NOTHING;
                """
            ],
            postgres: [
                """
                CREATE TABLE routing_obstacles (
                    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, obstacles BYTEA NOT NULL, PRIMARY KEY (tile_row, tile_column)
                )
                """,
                // Per row: a statement's trigger fires when the upsert leaves the row alone too.
                """
                CREATE TRIGGER routing_obstacles_changed AFTER INSERT OR UPDATE OR DELETE ON routing_obstacles
                FOR EACH ROW EXECUTE FUNCTION routing_moved('soft')
                """,
                """
                INSERT INTO map_dirty SELECT tile_row, tile_column, nextval('map_dirty_version') FROM map_tiles
                ON CONFLICT (tile_row, tile_column) DO NOTHING
                """,
                // The links' trigger per row too: each tile stored runs two UPDATEs of its links
                // that usually change none, and a statement's trigger moved `soft` for each.
                "DROP TRIGGER routing_links_changed ON map_links",
                """
                CREATE TRIGGER routing_links_changed AFTER INSERT OR UPDATE OR DELETE ON map_links
                FOR EACH ROW EXECUTE FUNCTION routing_moved('soft')
                """,
                "CREATE TRIGGER routing_links_truncated AFTER TRUNCATE ON map_links FOR EACH STATEMENT EXECUTE FUNCTION routing_moved('soft')",
            ]),
        // Rides confirmed before a hub's first import were matched to no street: each queued
        // ride says whether it was, and the map maintainer matches the rest once streets
        // exist (`MapMaintainer.matchStreetBacklog`). Rides the network holds already count
        // as matched where streets are imported (a build of steps v13-v18 matched them as
        // they came, and which came before the import is not recorded), and as not matched
        // where none are: their evidence is added at the first import.
        Step(
            name: "v19-street-backlog",
            sqlite: [
                """
                ALTER TABLE map_network_queue ADD COLUMN streets_matched INTEGER NOT NULL DEFAULT 0;
                UPDATE map_network_queue SET streets_matched = 1
                WHERE EXISTS (SELECT 1 FROM streets) AND seq <= (SELECT applied FROM map_network_state);
                CREATE INDEX map_network_queue_unmatched ON map_network_queue (seq) WHERE streets_matched = 0;
                """
            ],
            postgres: [
                "ALTER TABLE map_network_queue ADD COLUMN streets_matched BOOLEAN NOT NULL DEFAULT false",
                """
                UPDATE map_network_queue SET streets_matched = true
                WHERE EXISTS (SELECT 1 FROM streets) AND seq <= (SELECT applied FROM map_network_state)
                """,
                "CREATE INDEX map_network_queue_unmatched ON map_network_queue (seq) WHERE NOT streets_matched",
            ]),
        // Places looked up by their names' rarest trigrams (`PlaceSearch.probe`): each name's
        // `PlaceSearch.key` (its words padded as pg_trgm pads them) is what the trigram indexes
        // hold, and `place_trigrams` how many places hold each trigram. Looked up by any
        // window of the query, "road" alone found every name holding "roa" or "oad"
        // (bench/places.sh: p95 28 ms SQLite, 64 ms PostgreSQL against 20). SQLite's FTS5
        // table indexes `places.key` (external content: a found row is read from `places`,
        // 3 µs a row less than from FTS5's own copy); PostgreSQL's GIN index takes each
        // import's rows at once (`fastupdate = off`: rows left in GIN's pending list were
        // scanned by every search, 21 ms of a 31 ms query). The program keys the places an
        // earlier build stored.
        Step(
            name: "v20-place-keys",
            sqlite: [
                """
                DROP TABLE places_fts;
                ALTER TABLE places ADD COLUMN key TEXT NOT NULL DEFAULT '';
                CREATE VIRTUAL TABLE places_fts USING fts5(key, content = 'places', tokenize = 'trigram');
                CREATE TABLE place_trigrams (trigram TEXT PRIMARY KEY NOT NULL, places INTEGER NOT NULL) WITHOUT ROWID;
                """
            ],
            postgres: [
                "ALTER TABLE places ADD COLUMN key TEXT NOT NULL DEFAULT ''",
                "DROP INDEX places_name_trigrams",
                "CREATE INDEX places_key_trigrams ON places USING GIN (key gin_trgm_ops) WITH (fastupdate = off)",
                "CREATE TABLE place_trigrams (trigram TEXT PRIMARY KEY, places INTEGER NOT NULL)",
            ],
            sqliteProgram: SQLiteHubStore.keyStoredPlaces, postgresProgram: PostgresHubStore.keyStoredPlaces),
    ]

    /// The names earlier builds recorded (`formerly`): read as their step, never listed as applied.
    static func formerNames(_ dialect: Dialect) -> Set<String> { Set(steps.compactMap { $0.formerly[dialect] }) }
}
