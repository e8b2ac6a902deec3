import BikePathFixtures
import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct RecoveryTests {
    @Test func freshStoreUsesWALAndFullSync() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        // The writer's connection is the one that commits: GRDB opens a pool's with NORMAL.
        let (mode, sync, version) = try store.pool.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int32.fetchOne(db, sql: "PRAGMA user_version")
            )
        }
        #expect(mode == "wal")
        #expect(sync == 2)  // FULL
        // Opening committed nothing to the WAL (GRDB's own CREATE/DROP TABLE would be 16 KB).
        let wal = try FileManager.default.attributesOfItem(atPath: dir.file("s.db") + "-wal")
        #expect((wal[.size] as? Int ?? -1) <= 32)
        #expect(version == Schema.currentVersion)
        #expect(try store.integrityCheck() == ["ok"])
        #expect(store.openReport.movedAsideTo == nil)
    }

    /// The -wal of a store open elsewhere is left alone (its owner may be writing it): opening
    /// then lets GRDB make its own commit instead of putting in a 32-byte hole.
    @Test func walOfAStoreOpenElsewhereIsLeftAlone() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        let running = try Store.open(path: path)
        defer { try? running.close() }
        try running.checkpoint()  // the WAL is empty and `running` keeps the store open
        let other = try Store.open(path: path, mode: .existing)
        defer { try? other.close() }
        let wal = try FileManager.default.attributesOfItem(atPath: path + "-wal")
        #expect((wal[.size] as? Int ?? 0) > 32, "GRDB's own commit, not a hole")
        #expect(try other.integrityCheck() == ["ok"])
    }

    @Test func nonSQLiteFileIsMovedAsideAndStoreStartsFresh() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        let junk = Data("this is a GPX file someone copied here, not a database\n".utf8)
        try junk.write(to: URL(fileURLWithPath: path))
        let store = try Store.open(path: path)
        #expect(store.openReport.movedAsideTo == path + ".corrupt-1")
        #expect(store.openReport.movedAsideReason?.contains("not an SQLite database") == true)
        // Nothing lost: the original bytes are kept beside the new store.
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".corrupt-1")) == junk)
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try store.count("SELECT COUNT(*) FROM trips") == 0)
    }

    @Test func damagedPagesAreMovedAside() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        do {
            let store = try Store.open(path: path)
            _ = try replay(store, trips: 1, seconds: 300)
            try store.checkpoint()
            try store.close()
        }
        // Overwrite the second and third pages (table b-trees) with garbage.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }))
        try handle.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let store = try Store.open(path: path)
        #expect(store.openReport.movedAsideTo == path + ".corrupt-1")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".corrupt-1")) == damaged)
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func futureSchemaIsRefusedAndLeftUntouched() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        do {
            let store = try Store.open(path: path)
            _ = try replay(store, trips: 1, seconds: 60)
            try store.pool.write { db in try db.execute(sql: "PRAGMA user_version = 99") }
            try store.checkpoint()
            try store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: StoreError.futureSchema(path: path, found: 99, supported: Schema.currentVersion)) {
            try Store.open(path: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".corrupt-1"))
        let message = StoreError.futureSchema(path: path, found: 99, supported: 2).description
        #expect(message.contains("newer") && message.contains("left untouched"))
    }

    @Test func readOnlyDirectoryGivesClearError() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let mountPoint = dir.file("ro")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        if isRoot {
            // Root ignores permission bits; a read-only mount is what a read-only card looks like.
            #expect(try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]).status == 0)
        }
        defer { if isRoot { _ = try? runProcess("/bin/umount", [mountPoint]) } }
        let path = mountPoint + "/s.db"
        do {
            let store = try Store.open(path: path)
            _ = try replay(store, trips: 1, seconds: 60)
            try store.checkpoint()
            try store.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        if isRoot {
            #expect(try runProcess("/bin/mount", ["-o", "remount,ro", mountPoint]).status == 0)
        } else {
            chmod(mountPoint, 0o555)
        }
        defer { if !isRoot { chmod(mountPoint, 0o755) } }
        do {
            _ = try Store.open(path: path)
            Issue.record("opening in a read-only directory should fail")
        } catch let error as StoreError {
            guard case .directoryNotWritable(let d, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(d == mountPoint)
            #expect(error.description.contains("not writable"))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// Writes the first `outputs` outputs of a one-trip stream and drops the writer
    /// without closing the trip, as a crash would.
    private func crashMidTrip(_ path: String, outputs: Int) throws -> [(output: ChainOutput, now: SampleTime)] {
        let stream = SyntheticRides.stream(trips: 1, secondsPerTrip: 300)
        let store = try Store.open(path: path)
        let writer = try StoreWriter(store: store)
        for (i, item) in stream.prefix(outputs).enumerated() { try writer.append(item.output, at: item.now, position: Int64(i)) }
        try writer.flush()
        try store.close()
        return stream
    }

    @Test func openTripIsClosedAtItsLastPoint() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        _ = try crashMidTrip(path, outputs: 150)
        let store = try Store.open(path: path)
        let open = try #require(store.openReport.openTripID)
        #expect(try store.closeOpenTrip() == open)
        let trip = try store.pool.read { db in try Row.fetchOne(db, sql: "SELECT * FROM trips WHERE id = ?", arguments: [open]) }
        let lastPoint = try store.count("SELECT MAX(time_ns) / 1000000 FROM track_points")
        #expect(trip?["state"] == "closed")
        #expect(trip?["closed_by"] == "recovery")
        #expect((trip?["end_time_ns"] as Int64?).map { Int($0 / 1_000_000) } == lastPoint)
        let points = try store.count("SELECT COUNT(*) FROM track_points")
        let distance: Double = trip?["distance_m"] ?? 0
        // ~5.4 m/s average between consecutive 1 Hz points.
        #expect(distance > Double(points - 1) * 5 && distance < Double(points - 1) * 6)
        let drafts = try await store.listDrafts()
        #expect(drafts.count == 1 && drafts[0].tripID == open && drafts[0].state == .pending)
        #expect(try store.closeOpenTrip() == nil)
    }

    @Test func openTripIsResumedWhenTheRideGoesOn() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("s.db")
        let stream = try crashMidTrip(path, outputs: 150)
        let store = try Store.open(path: path)
        let open = try #require(store.openReport.openTripID)
        #expect(try store.resumeOpenTrip() == open)
        let writer = try StoreWriter(store: store)
        #expect(writer.committedPosition == 149)
        for i in 150..<stream.count { try writer.append(stream[i].output, at: stream[i].now, position: Int64(i)) }
        try writer.flush()
        #expect(try store.tripIDs() == [open])
        #expect(try store.count("SELECT COUNT(*) FROM trips WHERE state = 'closed' AND closed_by = 'chain'") == 1)
        #expect(try store.count("SELECT COUNT(*) FROM track_points") == 300)
    }
}
