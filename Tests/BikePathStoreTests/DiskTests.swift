import BikePathFixtures
import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.serialized, .ownThreads) struct DiskTests {
    /// Fills the file system with one file until ENOSPC.
    private func fill(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { close(fd) }
        let chunk = [UInt8](repeating: 0xAB, count: 4096)
        while chunk.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == ENOSPC)
    }

    @Test func fullDiskKeepsRunningKeepsEventsAndRecovers() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let mountPoint = try mountSmallDisk(dir, for: "the disk-full test") else { return }
        defer { _ = try? runProcess("/bin/umount", [mountPoint]) }

        let store = try Store.open(path: mountPoint + "/s.db")
        var policy = WriterPolicy()
        policy.maxHeldOutputs = 1500
        let writer = try StoreWriter(store: store, policy: policy)
        try fill(mountPoint + "/filler")

        let stream = SyntheticRides.stream(trips: 2, secondsPerTrip: 1200)
        for (i, item) in stream.enumerated() {
            try writer.append(item.output, at: item.now, position: Int64(i))  // must not throw
        }
        #expect(writer.diskFull.isFull)
        #expect(writer.diskFull.failedCommits > 0)
        #expect(writer.diskFull.droppedTrackPoints > 0)  // the hold is bounded ...
        let expectedEvents = stream.filter {
            switch $0.output {
            case .obstacle, .sos: true
            default: false
            }
        }.count
        // Space returns: the next commit goes through with every event kept.
        try FileManager.default.removeItem(atPath: mountPoint + "/filler")
        try writer.flush()
        #expect(!writer.diskFull.isFull)
        #expect(try store.count("SELECT COUNT(*) FROM events") == expectedEvents)  // ... but events are all kept
        #expect(try store.count("SELECT COUNT(*) FROM trips WHERE state = 'closed'") == 2)
        #expect(try store.integrityCheck() == ["ok"])
        #expect(try store.verify().ok)
        let diagnostics = try store.diagnostics()
        #expect(diagnostics.diskFullFailedCommits == writer.diskFull.failedCommits)
        #expect(diagnostics.diskFullDroppedPoints == writer.diskFull.droppedTrackPoints)
        try store.close()
    }

    /// A store stopped cleanly (its WAL truncated) opens again on a card with no byte free:
    /// opening writes nothing (a DatabasePool left alone committed 16 KB to the WAL first, and
    /// failed with SQLITE_FULL), so the daemon starts and holds its outputs in memory.
    @Test func storeOpensOnAFullDisk() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        guard let mountPoint = try mountSmallDisk(dir, for: "the full-disk open test") else { return }
        defer { _ = try? runProcess("/bin/umount", [mountPoint]) }
        let path = mountPoint + "/s.db"
        let first = try Store.open(path: path)
        _ = try replay(first, trips: 1, seconds: 120)
        try first.checkpoint()
        try first.close()
        try fill(mountPoint + "/filler")

        let store = try Store.open(path: path)
        defer { try? store.close() }
        #expect(try store.count("SELECT COUNT(*) FROM trips") == 1)
        _ = try StoreWriter(store: store)
        var wal = stat()
        #expect(stat(path + "-wal", &wal) == 0 && wal.st_blocks == 0, "the WAL holds no frames")
    }

    @Test func retentionDropsSyncedDataOldestFirstAndNeverPendingOrSOS() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.budgetMegabytes = 100
        let path = dir.file("s.db")
        let store = try Store.open(path: path, configuration: config)
        _ = try replay(store, trips: 4, seconds: 900)
        let drafts = try await store.listDrafts()
        // Trip 1 synced, trip 2 rejected, trips 3 and 4 still waiting for the rider.
        try store.confirmDraft(drafts[0].id)
        try store.markDraftSynced(drafts[0].id)
        try store.rejectDraft(drafts[1].id)
        try store.checkpoint()
        let used = try store.usedBytes()
        let pendingTrips = [drafts[2].tripID, drafts[3].tripID]
        func pendingRows() throws -> Int {
            try store.count(
                "SELECT (SELECT COUNT(*) FROM track_points WHERE trip_id IN ('\(pendingTrips[0])', '\(pendingTrips[1])')) + (SELECT COUNT(*) FROM event_windows w JOIN events e ON e.id = w.event_id WHERE e.trip_id IN ('\(pendingTrips[0])', '\(pendingTrips[1])'))"
            )
        }
        let pendingBefore = try pendingRows()

        // A budget just below what is used: dropping the oldest windows is enough
        // (they live in their own table, so deleting them frees whole pages).
        let tight = try Store.open(
            path: path,
            configuration: {
                var c = config; c.budgetMegabytes = Double(used - 20_000) / 1_048_576; return c
            }())
        let first = try tight.enforceBudget()
        #expect(first.windowsDropped > 0 && first.trackPointsDeleted == 0 && first.eventsPruned == 0)
        #expect(!first.overBudget && first.usedBytesAfter < first.usedBytesBefore)
        // A budget nothing can meet: everything of done drafts goes, nothing else.
        let impossible = try Store.open(
            path: path,
            configuration: {
                var c = config; c.budgetMegabytes = 0.01; return c
            }())
        let second = try impossible.enforceBudget()
        #expect(second.overBudget)
        #expect(second.trackPointsDeleted == 1800)
        #expect(second.eventsPruned > 0)
        #expect(try pendingRows() == pendingBefore)
        #expect(try store.count("SELECT COUNT(*) FROM events WHERE kind = 'sos'") == 1)
        #expect(try store.count("SELECT COUNT(*) FROM track_points WHERE trip_id IN ('\(drafts[0].tripID)', '\(drafts[1].tripID)')") == 0)
        // Pruned records are accounted for, not reported as tampering.
        let report = try store.verify()
        #expect(report.ok)
        // Pruned events, and the sent outbox records retention deleted (their links are marked too).
        let prunedOutbox = try store.count("SELECT COUNT(*) FROM hash_chain WHERE pruned = 1 AND record_kind = 'outbox'")
        #expect(report.prunedRecords == second.eventsPruned + prunedOutbox)
    }
}
