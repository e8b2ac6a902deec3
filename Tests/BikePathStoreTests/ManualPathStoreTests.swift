import BikePathAPI
import BikePathCore
import BikePathTestSupport
import Foundation
import GRDB
import Testing

@testable import BikePathStore

/// The device's manual paths (docs/storage.md, `manual_paths`): the migration, and the
/// states a path goes through as sync reports the hub's answers.
@Suite(.ownThreads) struct ManualPathStoreTests {
    static let path = ManualPathUpload(
        streets: ["Aldersgate Street", "Goswell Road"], start: WirePosition(lat: 51.519, lon: -0.09705),
        end: WirePosition(lat: 51.5241, lon: -0.09625), status: "medium")

    /// A store written by the build before (schema 5, a draft's trip in it) opens at schema 6
    /// with the table empty and its rows kept.
    @Test func aVersion5StoreIsMigratedAndKeepsItsRows() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let file = dir.file("old.db")
        try Self.writeVersion5(file)
        let store = try Store.open(path: file)
        try await store.pool.read { db in
            #expect(try Int32.fetchOne(db, sql: "PRAGMA user_version") == 6)
            #expect(try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'written-by'") == "schema 5")
            let columns = try db.columns(in: "manual_paths").map(\.name)
            #expect(columns.contains("refusal_message") && columns.contains("length_m") && columns.contains("body"))
        }
        #expect(try await store.manualPaths().isEmpty)
    }

    /// A store as the build before left it: schema 5, a row in `meta`, in WAL mode (`Store.createSchema`).
    static func writeVersion5(_ file: String) throws {
        let queue = try DatabaseQueue(path: file)
        try Schema.migrator.migrate(queue, upTo: "v5-evidence")
        try queue.write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('written-by', 'schema 5')")
            #expect(try Int32.fetchOne(db, sql: "PRAGMA user_version") == 5)
            #expect(try db.tableExists("manual_paths") == false)
        }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
    }

    @Test func aPathIsQueuedThenSentOrRefusedAndOnlyAnUnsentOneIsDeleted() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let a = try store.addManualPath(Self.path, id: "A-1", utcNanoseconds: 1_000)
        let b = try store.addManualPath(Self.path, id: "B-2", utcNanoseconds: 2_000)
        let c = try store.addManualPath(Self.path, id: "C-3", utcNanoseconds: 3_000)
        #expect(try await store.queuedManualPaths().map(\.id) == ["A-1", "B-2", "C-3"])
        #expect(a.state == .queued && a.path == Self.path)

        // A failure keeps it queued and says why; sent keeps the hub's length; refused its code and sentence.
        try store.recordManualPathAttempt(a.id, .failed("hub unreachable: connection refused"), utcNanoseconds: 10)
        try store.recordManualPathAttempt(a.id, .sent(lengthMeters: 689.6), utcNanoseconds: 11)
        try store.recordManualPathAttempt(b.id, .refused(code: "unknown-street", message: "street 2 is not a street"), utcNanoseconds: 12)
        try store.recordManualPathAttempt(c.id, .failed("hub answered 503: busy"), utcNanoseconds: 13)
        // A sent path is not changed by a late answer.
        try store.recordManualPathAttempt(a.id, .failed("late"), utcNanoseconds: 14)

        let all = try await store.manualPaths()
        #expect(all.map(\.state) == [.sent, .refused, .queued])
        #expect(all[0].lengthMeters == 689.6 && all[0].attempts == 2 && all[0].lastFailure == nil)
        #expect(all[1].refusalCode == "unknown-street" && all[1].refusalMessage == "street 2 is not a street")
        #expect(all[2].lastFailure == "hub answered 503: busy" && all[2].attempts == 1)
        #expect(try await store.queuedManualPaths().map(\.id) == ["C-3"])
        #expect(try store.syncLog().prefix(4).map(\.outcome) == ["failed", "refused", "sent", "failed"])
        #expect(try store.syncLog().first?.recordKind == "manual_path")

        #expect(throws: StoreError.manualPathSent("A-1")) { try store.deleteManualPath("A-1") }
        #expect(try store.deleteManualPath("B-2").state == .refused)
        let c3 = try await store.resolveManualPathID("c-")
        #expect(try store.deleteManualPath(c3).id == "C-3")
        #expect(throws: StoreError.noSuchManualPath("C-3")) { try store.deleteManualPath("C-3") }
        await #expect(throws: StoreError.noSuchManualPath("zz")) { try await store.resolveManualPathID("zz") }
        #expect(try await store.manualPaths().map(\.id) == ["A-1"])
    }

    /// What the hub would refuse for its fields or count is not stored.
    @Test func aPathTheHubMustRefuseIsNotStored() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        var none = Self.path
        none.streets = []
        #expect(throws: StoreError.invalidManualPath(["streets: a path names 1–20 streets, not 0"])) {
            try store.addManualPath(none, utcNanoseconds: nil)
        }
        var far = Self.path
        far.start.lat = 91
        far.status = "fine"
        do {
            try store.addManualPath(far, utcNanoseconds: nil)
            Issue.record("a latitude of 91 and the status 'fine' were stored")
        } catch StoreError.invalidManualPath(let problems) {
            #expect(problems.count == 2 && problems[0].hasPrefix("start.lat") && problems[1].hasPrefix("status"), "\(problems)")
        }
        #expect(try await store.manualPaths().isEmpty)
    }
}
