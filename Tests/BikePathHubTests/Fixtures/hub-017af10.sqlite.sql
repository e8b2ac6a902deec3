-- A hub's SQLite store at the schema of commit 017af10 (migrations v1 … v8-snake-case-bodies, the
-- eight names of that build), with a few rows: SchemaMigrationTests migrates it. sqlite3 .dump.
PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
INSERT INTO grdb_migrations VALUES('v1');
INSERT INTO grdb_migrations VALUES('v2-token-manager');
INSERT INTO grdb_migrations VALUES('v3-map-tiles');
INSERT INTO grdb_migrations VALUES('v4-path-network');
INSERT INTO grdb_migrations VALUES('v5-map-edition');
INSERT INTO grdb_migrations VALUES('v6-map-evidence');
INSERT INTO grdb_migrations VALUES('v8-snake-case-bodies');
INSERT INTO grdb_migrations VALUES('v7-map-attempts');
CREATE TABLE devices (
    device_id TEXT PRIMARY KEY NOT NULL,
    token_sha256 TEXT NOT NULL UNIQUE,
    revoked INTEGER NOT NULL DEFAULT 0
, managed_by TEXT NOT NULL DEFAULT 'file' CHECK (managed_by IN ('file', 'command')));
INSERT INTO devices VALUES('rider-a','8f434346648f6b96df89dda901c5176b10a6d83961dd3c1ac88b59b2dc327aa4',0,'file');
INSERT INTO devices VALUES('rider-b','2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae',1,'command');
CREATE TABLE records (
    device_id TEXT NOT NULL REFERENCES devices(device_id),
    kind TEXT NOT NULL CHECK (kind IN ('sos', 'confirmation', 'draft', 'trip')),
    id TEXT NOT NULL,
    sha256 TEXT NOT NULL,       -- of the canonical body; equality means "identical"
    body BLOB NOT NULL,         -- canonical JSON
    received_utc TEXT NOT NULL,
    PRIMARY KEY (device_id, kind, id)
) WITHOUT ROWID;
INSERT INTO records VALUES('rider-a','sos','sos-1','a3f1',X'7b226964223a22736f732d31227d','2026-11-27T10:00:00Z');
INSERT INTO records VALUES('rider-b','draft','draft-1','b4e2',X'7b226964223a2264726166742d31227d','2026-11-27T11:30:00Z');
CREATE TABLE live_positions (
    device_id TEXT PRIMARY KEY NOT NULL,
    body BLOB NOT NULL,
    updates INTEGER NOT NULL DEFAULT 1,
    received_utc TEXT NOT NULL
);
INSERT INTO live_positions VALUES('rider-a',X'7b7d',3,'2026-11-27T12:00:00Z');
CREATE TABLE map_tile_records (
    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, device_id TEXT NOT NULL, id TEXT NOT NULL,
    PRIMARY KEY (tile_row, tile_column, device_id, id)
) WITHOUT ROWID;
CREATE TABLE map_indexed (device_id TEXT NOT NULL, id TEXT NOT NULL, PRIMARY KEY (device_id, id)) WITHOUT ROWID;
CREATE TABLE map_dirty (
    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, version INTEGER NOT NULL,
    PRIMARY KEY (tile_row, tile_column)
) WITHOUT ROWID;
INSERT INTO map_dirty VALUES(800,50,7);
CREATE TABLE map_tiles (
    tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL, slice BLOB NOT NULL,
    PRIMARY KEY (tile_row, tile_column)
) WITHOUT ROWID;
CREATE TABLE map_counter (value INTEGER NOT NULL);
INSERT INTO map_counter VALUES(7);
CREATE TABLE map_network_queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, device_id TEXT NOT NULL, id TEXT NOT NULL, UNIQUE (device_id, id)
);
CREATE TABLE map_network_state (applied INTEGER NOT NULL, next_node INTEGER NOT NULL);
INSERT INTO map_network_state VALUES(0,1);
CREATE TABLE map_nodes (
    id INTEGER PRIMARY KEY, lat REAL NOT NULL, lon REAL NOT NULL, tile_row INTEGER NOT NULL, tile_column INTEGER NOT NULL
);
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
CREATE TABLE map_link_riders (link INTEGER NOT NULL, device_id TEXT NOT NULL, PRIMARY KEY (link, device_id)) WITHOUT ROWID;
CREATE TABLE map_edition (value TEXT NOT NULL);
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
INSERT INTO map_stretch_riders VALUES(41000,2600,'rider-a');
INSERT INTO map_stretch_riders VALUES(41001,2600,'rider-b');
CREATE TABLE map_attempts (
    device_id TEXT NOT NULL, id TEXT NOT NULL, attempts INTEGER NOT NULL, set_aside TEXT,
    PRIMARY KEY (device_id, id)
) WITHOUT ROWID;
INSERT INTO map_attempts VALUES('rider-a','c-1',2,NULL);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('map_network_queue',0);
CREATE VIEW published AS SELECT device_id, id AS draft_id, received_utc FROM records WHERE kind = 'confirmation';
CREATE INDEX map_nodes_by_tile ON map_nodes (tile_row, tile_column);
CREATE INDEX map_links_by_tile ON map_links (tile_row, tile_column);
COMMIT;
