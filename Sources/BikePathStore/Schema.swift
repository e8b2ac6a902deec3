import GRDB

/// The store's schema, as an ordered list of migrations (see docs/storage.md).
///
/// Each migration also sets `PRAGMA user_version` to its position, so that a
/// database written by a newer bikepathd is recognised before anything touches it.
enum Schema {
    /// The schema version this build writes. A database with a higher
    /// `user_version` comes from a future bikepathd and is refused.
    static let currentVersion: Int32 = 6

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-initial") { db in
            try db.execute(sql: v1)
            try db.execute(sql: "PRAGMA user_version = 1")
        }
        migrator.registerMigration("v2-retention-indexes") { db in
            // Retention walks the oldest synced data first; these keep that cheap.
            try db.execute(
                sql: """
                    CREATE INDEX outbox_state ON outbox(state, priority, seq);
                    CREATE INDEX events_trip ON events(trip_id, time_ns);
                    PRAGMA user_version = 2;
                    """)
        }
        migrator.registerMigration("v3-obstacle-review") { db in try db.execute(sql: v3) }
        migrator.registerMigration("v4-trust") { db in
            // Trust: track points remember whether the chain counted them as
            // riding (NULL before: recovery falls back to the speed rule), trips
            // keep a digest of their track, and the chain also links closed trips
            // and every outbox record, so that every byte that leaves is covered.
            try db.execute(
                sql: """
                    ALTER TABLE track_points ADD COLUMN moving INTEGER;
                    ALTER TABLE trips ADD COLUMN track_sha256 BLOB;
                    CREATE TABLE hash_chain_v3 (
                        seq INTEGER PRIMARY KEY NOT NULL,
                        record_kind TEXT NOT NULL CHECK (record_kind IN ('event', 'draft', 'trip', 'outbox')),
                        record_id TEXT NOT NULL,
                        record_sha256 BLOB NOT NULL,
                        link_sha256 BLOB NOT NULL,
                        pruned INTEGER NOT NULL DEFAULT 0,
                        UNIQUE (record_kind, record_id)
                    );
                    INSERT INTO hash_chain_v3 SELECT seq, record_kind, record_id, record_sha256, link_sha256, pruned FROM hash_chain;
                    DROP TABLE hash_chain;
                    ALTER TABLE hash_chain_v3 RENAME TO hash_chain;
                    """)
            // Records already there are linked as they are now (trust on first use).
            for id in try String.fetchAll(db, sql: "SELECT id FROM trips WHERE state = 'closed' ORDER BY seq") {
                try HashChain.linkTrip(db, id: id)
            }
            for row in try Row.fetchAll(db, sql: "SELECT record_kind, record_id FROM outbox ORDER BY seq") {
                try HashChain.linkOutbox(db, kind: row["record_kind"], id: row["record_id"])
            }
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        migrator.registerMigration("v5-evidence") { db in
            // Evidence: a track point keeps the receiver's own speed over ground, which
            // the trip distance integrates (so a trip closed by recovery measures as the
            // chain did), and a window knows which of its samples is the peak, which the
            // review plot marks. NULL in rows written before: those fall back to the
            // positions and to an unmarked plot.
            try db.execute(
                sql: """
                    ALTER TABLE track_points ADD COLUMN ground_speed REAL;
                    ALTER TABLE event_windows ADD COLUMN peak_index INTEGER;
                    PRAGMA user_version = 5;
                    """)
        }
        migrator.registerMigration("v6-manual-paths") { db in try db.execute(sql: v6) }
        return migrator
    }

    /// Paths the rider enters by naming streets (`bikepathd path add`, docs/cli.md): sync sends
    /// each once to `PUT /v1/manual-paths/{id}` and keeps the hub's answer. Apart from the
    /// outbox: the hub answers a path with its length or a refusal the rider reads, not a
    /// batch result, and the outbox's kinds are fixed by a CHECK.
    private static let v6 = """
        CREATE TABLE manual_paths (
            id TEXT PRIMARY KEY NOT NULL,            -- UUID made on the device; the hub's key
            seq INTEGER NOT NULL UNIQUE,             -- entry order, for "oldest first"
            created_utc_ns INTEGER,
            body TEXT NOT NULL,                      -- the ManualPathUpload JSON sent, byte for byte on every try
            state TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'sent', 'refused')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_failure TEXT,                       -- why the last try is to be retried (unreachable, 5xx)
            length_m REAL,                           -- the hub's length of the path it made (sent)
            refusal_code TEXT,                       -- the hub's code (refused): unknown-street, …
            refusal_message TEXT                     -- the hub's sentence (refused)
        );
        PRAGMA user_version = 6;
        """

    /// Who reported an obstacle and how sure the detector is (NULL in rows
    /// written before: those hash as they did, see `HashChain.hashedValues`), which
    /// candidates a draft holds back, and the rider's answers that calibrate the detector.
    private static let v3 = """
        ALTER TABLE events ADD COLUMN source TEXT CHECK (source IN ('detected', 'rider'));
        ALTER TABLE events ADD COLUMN severity REAL;
        ALTER TABLE events ADD COLUMN confidence REAL;
        ALTER TABLE events ADD COLUMN strength REAL;
        -- Past the review budget: stored, counted toward road quality, not asked about.
        ALTER TABLE draft_obstacles ADD COLUMN held_back INTEGER NOT NULL DEFAULT 0;
        -- Review order within the draft (1 = asked first); NULL for held back and added ones.
        ALTER TABLE draft_obstacles ADD COLUMN review_rank INTEGER;

        -- One row per detected candidate the rider answered about in a confirmed draft.
        CREATE TABLE candidate_answers (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            draft_id TEXT NOT NULL,
            event_id TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,                      -- the kind the detector reported
            strength REAL NOT NULL,
            kept INTEGER NOT NULL                    -- 1 kept (maybe retyped), 0 dropped
        );
        -- This device's sensitivity fitted from the answers (SensitivityCalibration); no row: factory (1).
        CREATE TABLE calibration (kind TEXT PRIMARY KEY NOT NULL, scale REAL NOT NULL) WITHOUT ROWID;
        PRAGMA user_version = 3;
        """

    private static let v1 = """
        -- Key/value facts about the store itself: writer cursor, disk-full counters.
        CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;

        CREATE TABLE trips (
            id TEXT PRIMARY KEY NOT NULL,            -- UUID made on the device; sync key
            seq INTEGER NOT NULL UNIQUE,             -- creation order, for "oldest first"
            state TEXT NOT NULL CHECK (state IN ('open', 'closed')),
            start_time_ns INTEGER NOT NULL,
            start_utc_ns INTEGER,
            end_time_ns INTEGER,
            end_utc_ns INTEGER,
            closed_by TEXT CHECK (closed_by IN ('chain', 'recovery')),
            distance_m REAL NOT NULL DEFAULT 0,
            elapsed_s REAL NOT NULL DEFAULT 0,
            moving_s REAL NOT NULL DEFAULT 0,
            avg_moving_speed REAL NOT NULL DEFAULT 0,
            max_speed REAL NOT NULL DEFAULT 0,
            elevation_gain_m REAL NOT NULL DEFAULT 0,
            co2_avoided_g REAL NOT NULL DEFAULT 0,
            path BLOB                                -- reconstructed path: Float64 LE lat,lon pairs
        );
        CREATE UNIQUE INDEX one_open_trip ON trips(state) WHERE state = 'open';

        CREATE TABLE track_points (
            trip_id TEXT NOT NULL REFERENCES trips(id) ON DELETE CASCADE,
            time_ns INTEGER NOT NULL,
            utc_ns INTEGER,
            lat REAL NOT NULL,
            lon REAL NOT NULL,
            alt_m REAL,
            speed REAL NOT NULL,
            PRIMARY KEY (trip_id, time_ns)
        ) WITHOUT ROWID;

        CREATE TABLE activity_changes (
            time_ns INTEGER PRIMARY KEY NOT NULL,
            state TEXT NOT NULL
        );

        -- Obstacles and SOS. Rows are immutable once written: they are linked into
        -- hash_chain. The rider's edits live in draft_obstacles, never here.
        CREATE TABLE events (
            id TEXT PRIMARY KEY NOT NULL,            -- UUID made on the device; sync key
            trip_id TEXT REFERENCES trips(id),
            kind TEXT NOT NULL CHECK (kind IN ('obstacle', 'sos')),
            time_ns INTEGER NOT NULL,
            utc_ns INTEGER,
            lat REAL,
            lon REAL,
            speed REAL,
            obstacle_kind TEXT,
            peak REAL NOT NULL,
            energy REAL,
            impact_time_ns INTEGER,
            window_rate REAL,
            window_sha256 BLOB,                      -- hash of the IMU window, kept when retention drops it
            UNIQUE (kind, time_ns)
        );

        -- Raw IMU windows, apart from their events: retention drops them first,
        -- and deleting the oldest rows of this table frees whole pages.
        CREATE TABLE event_windows (
            event_id TEXT NOT NULL UNIQUE REFERENCES events(id) ON DELETE CASCADE,
            samples BLOB NOT NULL                    -- Float32 little-endian
        );

        CREATE TABLE road_quality (
            trip_id TEXT REFERENCES trips(id) ON DELETE CASCADE,
            start_time_ns INTEGER NOT NULL,
            end_time_ns INTEGER NOT NULL,
            start_lat REAL, start_lon REAL, end_lat REAL, end_lon REAL,
            length_m REAL NOT NULL,
            roughness REAL NOT NULL,
            status TEXT NOT NULL,
            PRIMARY KEY (start_time_ns)
        );

        CREATE TABLE drafts (
            id TEXT PRIMARY KEY NOT NULL,            -- UUID made on the device; sync key
            trip_id TEXT NOT NULL UNIQUE REFERENCES trips(id),
            seq INTEGER NOT NULL UNIQUE,
            state TEXT NOT NULL CHECK (state IN ('pending', 'confirmed', 'rejected', 'queued', 'synced')),
            path_status TEXT,                        -- set by the rider; NULL = not rated
            confirmed_payload TEXT                   -- the JSON document that was confirmed (hashed)
        );

        -- The obstacles a draft will publish: a copy of the candidates that the
        -- rider edits (change type, drop, add a missed one).
        CREATE TABLE draft_obstacles (
            id TEXT PRIMARY KEY NOT NULL,            -- UUID made on the device
            draft_id TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
            event_id TEXT REFERENCES events(id),     -- NULL for an obstacle the rider added
            kind TEXT NOT NULL,
            time_ns INTEGER,
            lat REAL,
            lon REAL,
            dropped INTEGER NOT NULL DEFAULT 0,
            origin TEXT NOT NULL CHECK (origin IN ('detected', 'rider'))
        );

        -- Every edit, in order, so that a draft's history can be shown and replayed.
        CREATE TABLE draft_edits (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            draft_id TEXT NOT NULL REFERENCES drafts(id) ON DELETE CASCADE,
            action TEXT NOT NULL,
            detail TEXT NOT NULL                     -- JSON
        );

        CREATE TABLE outbox (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            record_kind TEXT NOT NULL CHECK (record_kind IN ('sos', 'confirmation', 'draft', 'trip')),
            record_id TEXT NOT NULL,
            payload TEXT NOT NULL,
            priority INTEGER NOT NULL,               -- 0 sos < 1 confirmation < 2 draft < 3 trip (lower first)
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'quarantined')),
            attempts INTEGER NOT NULL DEFAULT 0,
            quarantine_reason TEXT,
            do_not_send INTEGER NOT NULL DEFAULT 0,
            UNIQUE (record_kind, record_id)
        );

        CREATE TABLE sync_log (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            utc_ns INTEGER,
            record_kind TEXT,
            record_id TEXT,
            outcome TEXT NOT NULL,
            detail TEXT
        );

        -- One row per distance threshold reached; the primary key makes each fire once.
        CREATE TABLE milestones (
            threshold_m INTEGER PRIMARY KEY NOT NULL,
            trip_id TEXT NOT NULL,
            total_m REAL NOT NULL
        );

        -- Tamper evidence: link n = SHA-256(link n-1 || n || kind || id || record hash).
        CREATE TABLE hash_chain (
            seq INTEGER PRIMARY KEY NOT NULL,
            record_kind TEXT NOT NULL CHECK (record_kind IN ('event', 'draft')),
            record_id TEXT NOT NULL,
            record_sha256 BLOB NOT NULL,
            link_sha256 BLOB NOT NULL,
            pruned INTEGER NOT NULL DEFAULT 0,       -- record deleted by retention after sync
            UNIQUE (record_kind, record_id)
        );
        """
}
