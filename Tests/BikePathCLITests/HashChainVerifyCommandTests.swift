import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

/// `bikepathd verify` over a chained store (the chain itself: BikePathStoreTests).
@Suite(.ownThreads) struct HashChainTests {
    @Test func verifyCommandExitsNonZeroOnABreak() async throws {
        let binary = try #require(bikepathdPath(), "bikepathd not built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 2, seconds: 300)
        try store.confirmDraft(try #require(try await store.listDrafts().first?.id))
        #expect(try await runProcess(binary, ["verify", "--db", dir.file("s.db")]).status == 0)
        try await store.pool.write { db in try db.execute(sql: "UPDATE events SET peak = 99 WHERE rowid = 3") }
        let result = try await runProcess(binary, ["verify", "--db", dir.file("s.db")])
        #expect(result.status == 2)
        #expect(result.out.contains("BROKEN at link") && result.out.contains("(event "), "\(result.out)")
    }
}
