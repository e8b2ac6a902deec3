import BikePathCore
import Foundation
import GRDB
import GRDBSQLite

/// Settings that change how the store keeps data (see docs/storage.md).
public struct StoreConfiguration: Sendable {
    /// Disk budget for the database files; retention starts past it.
    public var budgetMegabytes: Double = 512
    /// Distance milestones fire at every multiple of each step (metres).
    public var milestoneSteps: [Double] = [100_000]
    /// The chain's settings, used when a trip left open by a power cut is closed
    /// from its stored points (`TripTotals`, the chain's own computation); the
    /// daemon passes the configuration its chain runs with.
    public var trip = PipelineConfiguration()
    /// Detected candidates a draft asks the rider about (`obstacles.review_budget`, ReviewBudget).
    public var reviewBudget = ReviewBudget.defaultBudget
    /// Creates the defaults above: a 512 MiB budget, a milestone every 100 km, the default
    /// chain and review budget.
    public init() {}
}

/// What `Store.open` found and did, for the log and `diagnose`.
public struct OpenReport: Sendable, Equatable {
    /// Where a corrupt or non-SQLite file was moved, when that happened.
    public var movedAsideTo: String?
    public var movedAsideReason: String?
    /// The trip left open by a crash or power loss, if any. The daemon decides
    /// whether to resume it (`Store.resumeOpenTrip`) or close it (`Store.closeOpenTrip`).
    public var openTripID: String?
}

/// The SQLite buffer. One `Store` per process; the daemon writes through a
/// `StoreWriter`, the CLI reads and edits drafts.
public final class Store: Sendable {
    public let path: String
    public let configuration: StoreConfiguration
    public let openReport: OpenReport
    let pool: DatabasePool

    /// How a command may treat the file: only the daemon (and tools that write)
    /// create a store or move a damaged one aside; a reader never changes it.
    public enum Access: Sendable, Equatable {
        /// The daemon's: create when missing; move a damaged file aside, keeping
        /// it, and start a fresh one.
        case createOrRecover
        /// A rider's edit (confirm, consent): the file must exist and be healthy.
        case existing
        /// A read command's: like `.existing`, and opened read-only (so a store
        /// on a read-only mount can be read); never moved, created or migrated.
        case readOnly
    }

    /// Opens the database at `path`. With `.createOrRecover` (the default) it is
    /// created when missing and recovered from what a crash, power loss or bad
    /// card may have left there:
    /// - the directory must be writable (clear error otherwise);
    /// - a file that is not SQLite, or fails `PRAGMA integrity_check`, is moved
    ///   aside to `path.corrupt-N` (with its -wal/-shm) and a fresh store is created;
    /// - a database from a newer schema is refused and left untouched.
    /// Otherwise a missing file is `StoreError.noSuchStore` and a damaged one
    /// `StoreError.damaged`; the file is left exactly as it was. `.existing` on a store it
    /// cannot write is `StoreError.notWritable`; `.readOnly` reads a store on a read-only
    /// mount even without its -shm (`readingFallback`).
    public static func open(
        path: String, configuration: StoreConfiguration = StoreConfiguration(),
        mode: Access = .createOrRecover
    ) throws -> Store {
        let directory = Self.directory(of: path)
        if mode == .existing, FileManager.default.fileExists(atPath: path) { try requireWritable(path: path, directory: directory) }
        if mode != .createOrRecover { try requireHealthy(path: path) }
        if mode == .readOnly { return try openForReading(path: path, configuration: configuration) }
        if access(directory, W_OK) != 0 {
            throw StoreError.directoryNotWritable(directory, reason: String(cString: strerror(errno)))
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFREG {
            // SQLite would block for ever opening a FIFO; a device or directory is no store either.
            throw StoreError.notARegularFile(path)
        }
        var report = OpenReport()
        let isNew = !FileManager.default.fileExists(atPath: path)
        let pool: DatabasePool
        do {
            // `.existing` judged the file above already: a second integrity check would read it all again.
            pool = try openChecked(path: path, inspect: mode == .createOrRecover)
        } catch let failure as Unusable {
            let aside = try moveAside(path: path)
            report.movedAsideTo = aside
            report.movedAsideReason = failure.reason
            FileHandle.standardError.write(
                Data(
                    "bikepathd: database \(path) is unusable (\(failure.reason)); moved it to \(aside) and started a fresh one\n".utf8))
            pool = try openChecked(path: path)
            // Kept in the fresh store too, so that `status` and `diagnose` say it long after the log scrolled away.
            try pool.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('moved_aside_to', ?), ('moved_aside_reason', ?)",
                    arguments: [aside, failure.reason])
            }
        }
        if isNew {
            // A new store on a nearly full card: the reserve is made at once, before the
            // first track points take the room (made by the first writer, it found none
            // left, and an SOS was lost with 300–450 KB free: FullDiskRunTests).
            DiskReserve(storePath: path, bytes: WriterPolicy.defaultReserveBytes, step: WriterPolicy.defaultReserveStepBytes).refill()
        }
        shareWithGroup(path: path)
        report.openTripID = try pool.read { db in
            try String.fetchOne(db, sql: "SELECT id FROM trips WHERE state = 'open'")
        }
        return Store(path: path, configuration: configuration, openReport: report, pool: pool)
    }

    /// The store is the rider's: a member of the daemon's group (`bikepath`) runs
    /// `drafts`, `stats`, `export` and the review page without sudo. The unit's
    /// UMask=0077 makes new files 0600, so the owner adds group read-write to the
    /// database and its -wal and -shm (SQLite gives those the database file's mode
    /// when it makes them again). Others get nothing.
    private static func shareWithGroup(path: String) {
        for file in [path, path + "-wal", path + "-shm"] {
            var info = stat()
            guard stat(file, &info) == 0, info.st_uid == geteuid() else { continue }
            let mode = info.st_mode & 0o7777
            if mode & 0o060 != 0o060 { chmod(file, (mode | 0o060) & ~0o007) }
        }
    }

    private static func requireHealthy(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { throw StoreError.noSuchStore(path) }
        do {
            try inspectReadOnly(path: path)
        } catch let failure as Unusable {
            throw StoreError.damaged(path, reason: failure.reason)
        }
    }

    private static func openForReading(path: String, configuration: StoreConfiguration) throws -> Store {
        var config = Configuration()
        config.readonly = true
        config.busyMode = .timeout(5)
        do {
            let (pool, version) = try readingFallback(path: path) { location in
                let pool = try DatabasePool(path: location, configuration: config)
                return (pool, try pool.read { db in try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0 })
            }
            if version < Schema.currentVersion {
                throw StoreError.cannotOpen(
                    path,
                    reason:
                        "schema version \(version) is older than \(Schema.currentVersion); run the daemon (or any writing command) once to upgrade it"
                )
            }
            return Store(path: path, configuration: configuration, openReport: OpenReport(), pool: pool)
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    static func directory(of path: String) -> String {
        (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
    }

    /// A command that changes the store writes the file, its -wal and -shm, and may make those
    /// again in the directory: one it cannot write is said before anything runs, rather than
    /// SQLite's "attempt to write a readonly database" half-way through the command (on a
    /// read-only mount the directory check used to say "recording needs a writable directory").
    private static func requireWritable(path: String, directory: String) throws {
        for target in [path, path + "-wal", path + "-shm", directory]
        where (target == directory || FileManager.default.fileExists(atPath: target)) && access(target, W_OK) != 0 {
            throw StoreError.notWritable(path: path, blocked: target, errno: errno)
        }
    }

    /// Runs `open` on the store's path; when SQLite cannot open it read-only because the -shm
    /// (the WAL's index, which every reader of a WAL database maps) is missing and cannot be
    /// made — a read-only mount, a directory this user may not write — and the -wal holds no
    /// frames (missing, empty, or a header alone: a clean stop truncates it), runs it again
    /// on `file:PATH?immutable=1`: SQLite then reads the file alone, without locks or -shm,
    /// which is exact because everything is in the file. With frames in the -wal, reading the
    /// file alone would show the store as it was before them: `StoreError.walNeedsIndex`.
    private static func readingFallback<T>(path: String, _ open: (String) throws -> T) throws -> T {
        do {
            return try open(path)
        } catch let error as DatabaseError where [.SQLITE_CANTOPEN, .SQLITE_READONLY].contains(error.resultCode) {
            // CANTOPEN where the -shm cannot be made (a read-only mount); READONLY_CANTINIT
            // where it cannot be opened for writing either (a directory of another user's).
            if access(path, R_OK) != 0 { throw StoreError.cannotOpen(path, reason: String(cString: strerror(errno))) }
            let directory = Self.directory(of: path)
            let blocked = access(directory, W_OK) != 0 ? errno : EACCES  // the -shm exists but is not this user's to map
            var wal = stat()
            // 32 bytes: the WAL header; a frame adds 24 bytes and a page.
            let walFrames = stat(path + "-wal", &wal) == 0 && wal.st_size > 32
            if walFrames { throw StoreError.walNeedsIndex(path: path, errno: blocked) }
            let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path
            return try open("file:" + escaped + "?immutable=1")
        }
    }

    private init(path: String, configuration: StoreConfiguration, openReport: OpenReport, pool: DatabasePool) {
        self.path = path
        self.configuration = configuration
        self.openReport = openReport
        self.pool = pool
    }

    /// A file that exists but cannot serve as the store.
    private struct Unusable: Error { var reason: String }

    private static func openChecked(path: String, inspect: Bool = true) throws -> DatabasePool {
        if inspect, FileManager.default.fileExists(atPath: path) { try inspectReadOnly(path: path) }
        var config = Configuration()
        config.busyMode = .timeout(5)
        config.prepareDatabase { db in
            // WAL + FULL: each commit (about once a second) is fsynced, so power
            // loss costs at most the batch in memory. Set here rather than through
            // GRDB's journalMode option, which would lower synchronous to NORMAL.
            // See docs/storage.md.
            try db.execute(
                sql: """
                    PRAGMA journal_mode = WAL;
                    PRAGMA synchronous = FULL;
                    PRAGMA wal_autocheckpoint = 1000;
                    PRAGMA journal_size_limit = 4194304;
                    PRAGMA foreign_keys = ON;
                    """)
            // Keep the -wal and -shm files when the last connection closes: without
            // them SQLite cannot open a WAL database on a read-only mount, and
            // `stats`, `verify`, `drafts list` must work there (opened read-only).
            var persist: Int32 = 1
            _ = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
        }
        let pool: DatabasePool
        do {
            if !FileManager.default.fileExists(atPath: path) { try createSchema(path: path) }
            keepGRDBFromWritingWAL(path: path)
            pool = try DatabasePool(path: path, configuration: config)
            // The pool's writer is opened with synchronous = NORMAL after prepareDatabase ran;
            // it is the one connection that commits, and it stays open: FULL again.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
            try Schema.migrator.migrate(pool)
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw Unusable(reason: "not an SQLite database or damaged: \(error.message ?? "\(error.resultCode)")")
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path, reason: error.message ?? "\(error.resultCode)")
        }
        return pool
    }

    /// A new store's schema, written with a rollback journal before the store turns to WAL:
    /// in WAL mode the four migrations left ~240 KB of WAL frames for a ~120 KB database,
    /// and on a card with 300–450 KB free that was the room the SOS reserve needed
    /// (FullDiskRunTests). A crash half-way leaves a journal SQLite rolls back on the next open.
    private static func createSchema(path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue)
        // Turned to WAL here (one page through the journal), so that the pool opens a WAL store.
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
    }

    /// A `DatabasePool` opened on a WAL store whose -wal is missing or empty (a new store, and
    /// every store after a clean stop's TRUNCATE checkpoint) first commits a CREATE and DROP
    /// TABLE of its own, so that its readers never meet a missing WAL: 4 frames, 16,512 bytes
    /// (20 KiB of tmpfs pages). On a card with 320 KiB free that was the room the SOS lacked
    /// (it needs 13 frames, ~53 KB, and the reserve then held 45 KB: FullDiskRunTests), and on
    /// a full card that commit fails, so the pool could not open the store at all (the queue
    /// could, and held the outputs in memory). GRDB skips it when the -wal has a size: a
    /// 32-byte hole (the WAL header's size, no blocks) is such a file, and SQLite reads a WAL
    /// of no more than a header as holding no frames and writes a fresh header over it.
    /// The -wal is only touched while no connection has the store open: every connection holds
    /// a shared lock on the -shm's DMS byte (128) while it has the WAL index, so with it held
    /// exclusively nobody can be writing the -wal, and one who opens meanwhile waits (busy).
    /// An open file description lock, so that closing it leaves this process's SQLite locks be.
    private static func keepGRDBFromWritingWAL(path: String) {
        #if os(Linux)
            guard let file = FileHandle(forReadingAtPath: path) else { return }
            let header = (try? file.read(upToCount: 20)) ?? Data()
            try? file.close()
            // Bytes 18 and 19 are 2 in a WAL database (a rollback one is left alone).
            guard header.count == 20, header[header.startIndex + 18] == 2, header[header.startIndex + 19] == 2 else { return }
            var database = stat()
            guard stat(path, &database) == 0 else { return }
            // Made as SQLite makes them: the database's mode, and its owner when root makes them.
            func openBeside(_ suffix: String) -> Int32 {
                let fd = Glibc.open(path + suffix, O_RDWR | O_CREAT | O_CLOEXEC, database.st_mode & 0o777)
                if fd >= 0, geteuid() == 0 { _ = fchown(fd, database.st_uid, database.st_gid) }
                return fd
            }
            let shm = openBeside("-shm")
            guard shm >= 0 else { return }
            defer { Glibc.close(shm) }
            var lock = flock()
            lock.l_type = Int16(F_WRLCK)
            lock.l_whence = Int16(SEEK_SET)
            lock.l_start = 128
            lock.l_len = 1
            let setOpenFileDescriptionLock: Int32 = 37  // F_OFD_SETLK
            guard fcntl(shm, setOpenFileDescriptionLock, &lock) == 0 else { return }
            let wal = openBeside("-wal")
            guard wal >= 0 else { return }
            defer { Glibc.close(wal) }
            var info = stat()
            if fstat(wal, &info) == 0, info.st_size == 0 { _ = ftruncate(wal, 32) }
        #endif
    }

    /// Looks at an existing file through a read-only connection, so that a
    /// damaged or future database is judged before anything writes to it.
    private static func inspectReadOnly(path: String) throws {
        var config = Configuration()
        config.readonly = true
        do {
            let (version, problems) = try readingFallback(path: path) { location in
                let queue = try DatabaseQueue(path: location, configuration: config)
                defer { try? queue.close() }  // read-only inspection: closing cannot lose anything
                return try queue.read { db in
                    (try Int32.fetchOne(db, sql: "PRAGMA user_version") ?? 0, try String.fetchAll(db, sql: "PRAGMA integrity_check"))
                }
            }
            if problems != ["ok"] {
                throw Unusable(reason: "integrity_check: " + problems.prefix(3).joined(separator: "; "))
            }
            if version > Schema.currentVersion {
                throw StoreError.futureSchema(path: path, found: version, supported: Schema.currentVersion)
            }
        } catch let error as DatabaseError where [.SQLITE_NOTADB, .SQLITE_CORRUPT].contains(error.resultCode) {
            throw Unusable(reason: "not an SQLite database or damaged: \(error.message ?? "\(error.resultCode)")")
        } catch let error as DatabaseError {
            throw StoreError.cannotOpen(path, reason: error.message ?? "\(error.resultCode)")
        }
    }

    /// Renames the database and its WAL/SHM files to the first free `.corrupt-N` name.
    private static func moveAside(path: String) throws -> String {
        let fm = FileManager.default
        var n = 1
        while fm.fileExists(atPath: "\(path).corrupt-\(n)") { n += 1 }
        let target = "\(path).corrupt-\(n)"
        try fm.moveItem(atPath: path, toPath: target)
        for suffix in ["-wal", "-shm"] where fm.fileExists(atPath: path + suffix) {
            try fm.moveItem(atPath: path + suffix, toPath: target + suffix)
        }
        return target
    }

    /// Runs `PRAGMA integrity_check`; `["ok"]` when healthy.
    public func integrityCheck() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// Folds the WAL back into the main file (done at clean shutdown).
    public func checkpoint() throws {
        _ = try pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }
    }

    /// Closes the database; the store cannot be used after.
    /// - Throws: a GRDB `DatabaseError` when SQLite cannot close it.
    public func close() throws {
        // Readers first, so that the writer is the last connection: it then folds the WAL
        // back and truncates it on close, as one connection did (GRDB closes the writer first).
        pool.releaseMemory()
        try pool.close()
    }
}
