import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

/// A store on a read-only mount, or in a directory this user may not write, without its -shm
/// (a store copied off the device as one file, or a clean stop's files removed): the commands
/// that only read it read it (not SQLite's "unable to open database file"), and a command that
/// writes says what stops it and what to do.
@Suite(.ownThreads) struct ReadOnlyStoreTests {
    /// Each reading command, words its output must hold, and its exit status.
    static func readers(_ db: String) -> [(arguments: [String], expected: String, status: Int32)] {
        [
            (["drafts", "list", "--db", db], "to review", 0),
            (["drafts", "show", "1", "--db", db], "to review", 0),
            (["stats", "--db", db], "trips: 2", 0),
            (["verify", "--db", db], "ok: ", 0),
            (["export", "--format", "geojson", "1", "--db", db], "FeatureCollection", 0),
            (["sync", "status", "--db", db], "outbox", 0),
            // No gpsd and no IMU here (`--require none`); exit 3 for the store's withheld SOS,
            // which it names: the store was read.
            (
                ["diagnose", "--db", db, "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--require", "none"],
                "drafts waiting for the rider: 2", 3
            ),
        ]
    }

    /// `binary arguments` in a mount namespace of its own where `directory` is bound read-only
    /// (what a card mounted read-only looks like); the test's own view is untouched.
    static func onReadOnlyMount(_ directory: String, _ binary: String, _ arguments: [String]) throws -> (
        status: Int32, out: String, err: String
    ) {
        try runProcess(
            "/usr/bin/unshare",
            [
                "-m", "--propagation", "private", "sh", "-c", #"mount --bind "$0" "$0" && mount -o remount,ro,bind "$0" && exec "$@""#,
                directory, binary,
            ]
                + arguments)
    }

    /// The store without its -wal (empty after the clean stop) and -shm, as one file.
    static func alone(_ db: String) {
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: db + suffix) }
    }

    @Test func readCommandsReadAStoreOnAReadOnlyMountWithoutItsShm() throws {
        guard isRoot else {
            #expect(!isCI, "needs root for a mount namespace")
            return
        }
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        Self.alone(db)
        let before = try Data(contentsOf: URL(fileURLWithPath: db))
        for (arguments, expected, status) in Self.readers(db) {
            let r = try Self.onReadOnlyMount(dir.path, bin, arguments)
            #expect(r.status == status && r.out.contains(expected), "\(arguments): \(r.out)\n\(r.err)")
        }
        // A command that writes: the path, the cause and what to do, and nothing changed.
        let confirm = try Self.onReadOnlyMount(dir.path, bin, ["drafts", "confirm", "1", "--db", db])
        #expect(confirm.status == 1)
        #expect(
            confirm.err.contains("cannot change the store \(db): the file is on a read-only file system")
                && confirm.err.contains("remount it read-write"), "\(confirm.err)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == before)
        #expect(confirm.err.contains(StoreError.notWritable(path: db, blocked: db, errno: EROFS).description))
    }

    /// Frames in the -wal and no -shm: reading the file alone would show the store without
    /// them (a confirmation the rider made would look undone), so it is refused, naming why.
    @Test func aWalWithFramesAndNoShmIsRefusedNotMisread() throws {
        guard isRoot else {
            #expect(!isCI, "needs root for a mount namespace")
            return
        }
        let (bin, dir, db) = try storeWithTwoRides()
        defer { dir.cleanup() }
        let copy = dir.file("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: false)
        do {
            let store = try Store.open(path: db)
            _ = try store.issuePairingCode()  // a commit, left in the -wal while the store is open
            for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: db + suffix, toPath: copy + "/s.db" + suffix) }
            try store.close()
        }
        var wal = stat()
        #expect(stat(copy + "/s.db-wal", &wal) == 0 && wal.st_size > 32)
        let list = try Self.onReadOnlyMount(copy, bin, ["drafts", "list", "--db", copy + "/s.db"])
        #expect(list.status == 1)
        #expect(list.err.contains("its -wal holds changes") && list.err.contains("read-only file system"), "\(list.err)")
        // Where the -shm can be made, the same copy is read as it is.
        let readable = try runProcess(bin, ["drafts", "list", "--db", copy + "/s.db"])
        #expect(readable.status == 0 && readable.out.contains("to review"), "\(readable.err)")
    }

    /// A directory and a file this user may not write (chmod), as user nobody: root ignores
    /// permission bits, so the test switches users (setpriv, util-linux).
    @Test func aUserWhoMayNotWriteReadsAndIsToldWhyNotToWrite() throws {
        guard isRoot else {
            if isCI { Issue.record("needs root to run commands as another user, and CI=true") }
            return
        }
        let (bin, dir, db) = try storeWithTwoRides()
        defer {
            chmod(dir.path, 0o700)
            dir.cleanup()
        }
        Self.alone(db)
        #expect(chmod(db, 0o444) == 0 && chmod(dir.path, 0o555) == 0)
        func asNobody(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", bin] + arguments)
        }
        for (arguments, expected, status) in Self.readers(db) {
            let r = try asNobody(arguments)
            #expect(r.status == status && r.out.contains(expected), "\(arguments): \(r.out)\n\(r.err)")
        }
        let confirm = try asNobody(["drafts", "confirm", "1", "--db", db])
        #expect(confirm.status == 1)
        #expect(
            confirm.err.contains("cannot change the store \(db): the file is not writable by this user (Permission denied)")
                && confirm.err.contains("run it as a user who may write the store"), "\(confirm.err)")
    }
}
