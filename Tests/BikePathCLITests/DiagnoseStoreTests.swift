import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

/// `bikepathd diagnose` tells a technician about the store: a disk that was full and a
/// sync record that was quarantined, with its reason (issues 5 and 6).
@Suite(.ownThreads) struct DiagnoseStoreTests {
    @Test func diagnoseReportsDiskFullAndQuarantinedRecords() async throws {
        let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("s.db")
        let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
        #expect(try await runProcess(bench, ["store-replay", "--db", db, "--trips", "1", "--seconds-per-trip", "300"]).status == 0)

        let store = try Store.open(path: db)
        let draft = try #require(try await store.listDrafts().first)
        _ = try store.confirmDraft(draft.id)
        let queued = try #require(try await store.outboxPending().first)
        try store.recordSyncAttempt(seq: queued.seq, outcome: .quarantined("hub said 422: track too long"), utcNanoseconds: 1)
        // What StoreWriter records after SQLITE_FULL (DiskTests shows the writer doing it on a full tmpfs).
        try await store.pool.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('disk_full_failed_commits', '3'), ('disk_full_dropped_points', '42')"
            )
        }
        try store.close()

        // No gpsd or IMU here: with --require none they are not counted; the store's problems give exit 3.
        let text = try await runProcess(
            binary, ["diagnose", "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--db", db, "--require", "none"])
        #expect(text.status == 3, "\(text.err)")
        #expect(text.out.contains("the disk was full (3 commits failed, 42 track points dropped"))
        #expect(text.out.contains("quarantined after 1 attempts: hub said 422: track too long"))
        #expect(text.out.contains("1 refused by the hub"), "\(text.out)")  // the outbox line in the vocabulary's words

        let json = try await runProcess(
            binary, ["diagnose", "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--db", db, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let report = try #require(doc["store"] as? [String: Any])
        let sync = try #require(report["sync"] as? [String: Any])
        let quarantined = try #require(sync["quarantined"] as? [[String: Any]])
        #expect(quarantined.first?["reason"] as? String == "hub said 422: track too long")
        #expect((report["store"] as? [String: Any])?["disk_full_failed_commits"] as? Int == 3)
        #expect(doc["sensors"] != nil)
    }

    /// `diagnose --json` and `sync status` count the outbox by one rule (`PublishingState`): a
    /// record that consent holds back is not pending in one and held in the other.
    @Test func diagnoseCountsTheOutboxAsSyncStatusDoes() throws {
        let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
        let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("s.db")
        #expect(try runProcess(bench, ["store-replay", "--db", db, "--trips", "1", "--seconds-per-trip", "300"]).status == 0)
        #expect(try runProcess(binary, ["drafts", "confirm", "1", "--db", db]).status == 0)
        #expect(try runProcess(binary, ["sync", "consent", "trips", "off", "--db", db]).status == 0)

        func total(_ object: Any?) -> Int { (object as? [String: Int] ?? [:]).values.reduce(0, +) }
        let status = try runProcess(binary, ["sync", "status", "--db", db, "--json"])
        let sync = try #require(try JSONSerialization.jsonObject(with: Data(status.out.utf8)) as? [String: Any], "\(status.out)")
        #expect(total(sync["pending"]) == 0 && total(sync["withheld"]) > 0, "\(status.out)")

        let json = try runProcess(
            binary, ["diagnose", "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--db", db, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any], "\(json.out)")
        let figures = try #require((doc["store"] as? [String: Any])?["store"] as? [String: Any], "\(json.out)")
        #expect(figures["outbox_pending"] as? Int == total(sync["pending"]), "\(figures)")
        #expect(figures["outbox_withheld"] as? Int == total(sync["withheld"]), "\(figures)")
    }

    @Test func diagnoseSaysWhenThereIsNoStore() throws {
        let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let result = try runProcess(
            binary, ["diagnose", "--duration", "0.5", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--db", dir.file("absent.db")])
        #expect(result.out.contains("no store at \(dir.file("absent.db"))"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("absent.db")), "diagnose must not create a store")
    }
}
