import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct HashChainTests {
    private func chainedStore(_ dir: TempDir) async throws -> Store {
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 2, seconds: 300)
        try store.confirmDraft(try #require(try await store.listDrafts().first?.id))
        return store
    }

    @Test func intactChainVerifies() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        let report = try store.verify()
        let events = try store.count("SELECT COUNT(*) FROM events")
        let trips = try store.count("SELECT COUNT(*) FROM trips WHERE state = 'closed'")
        let outbox = try store.count("SELECT COUNT(*) FROM outbox")
        #expect(report.ok)
        // Every event, the confirmed draft, every closed trip and every queued outbox record.
        #expect(report.links == events + 1 + trips + outbox)
    }

    /// Flips one byte of one stored value through raw SQL, as someone editing the file would.
    @Test(arguments: ["peak", "lat", "obstacle_kind", "time_ns", "window"])
    func changingAnyStoredFieldIsReported(column: String) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        let (seq, id) = try await store.pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT seq, record_id FROM hash_chain WHERE record_kind = 'event' ORDER BY seq LIMIT 1 OFFSET 5")!
            return (row["seq"] as Int64, row["record_id"] as String)
        }
        try await store.pool.write { db in
            switch column {
            case "window":
                var blob = try Data.fetchOne(db, sql: "SELECT samples FROM event_windows WHERE event_id = ?", arguments: [id])!
                blob[17] ^= 0x01
                try db.execute(sql: "UPDATE event_windows SET samples = ? WHERE event_id = ?", arguments: [blob, id])
            case "obstacle_kind":
                try db.execute(
                    sql: "UPDATE events SET obstacle_kind = CASE obstacle_kind WHEN 'bump' THEN 'debris' ELSE 'bump' END WHERE id = ?",
                    arguments: [id])
            case "time_ns":
                try db.execute(sql: "UPDATE events SET time_ns = time_ns + 1 WHERE id = ?", arguments: [id])
            default:
                try db.execute(sql: "UPDATE events SET \(column) = \(column) + 1e-9 WHERE id = ?", arguments: [id])
            }
        }
        let report = try store.verify()
        #expect(report.firstBreak?.seq == seq)
        #expect(report.firstBreak?.recordID == id)
        #expect(report.links == Int(seq) - 1)
    }

    @Test func deletingARecordIsReported() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        let (seq, id) = try await store.pool.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT seq, record_id FROM hash_chain WHERE record_kind = 'event' ORDER BY seq LIMIT 1 OFFSET 9")!
            return (row["seq"] as Int64, row["record_id"] as String)
        }
        try await store.pool.write { db in
            try db.execute(sql: "DELETE FROM draft_obstacles WHERE event_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM events WHERE id = ?", arguments: [id])
        }
        let report = try store.verify()
        #expect(report.firstBreak?.seq == seq)
        #expect(report.firstBreak?.reason.contains("deleted") == true)
    }

    @Test func deletingALinkOrItsRecordTogetherIsReported() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        try await store.pool.write { db in
            let id = try String.fetchOne(db, sql: "SELECT record_id FROM hash_chain WHERE seq = 4")!
            try db.execute(sql: "DELETE FROM hash_chain WHERE seq = 4")
            try db.execute(sql: "DELETE FROM draft_obstacles WHERE event_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM events WHERE id = ?", arguments: [id])
        }
        #expect(try store.verify().firstBreak?.seq == 5)
    }

    @Test func renumberingTheChainAfterADeleteIsReported() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        try await store.pool.write { db in
            try db.execute(sql: "DELETE FROM hash_chain WHERE seq = 4")
            try db.execute(sql: "UPDATE hash_chain SET seq = seq - 1 WHERE seq > 4")
        }
        #expect(try store.verify().firstBreak?.seq == 4)
    }

    @Test func changingAConfirmedDraftIsReported() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try await chainedStore(dir)
        try await store.pool.write { db in
            try db.execute(
                sql:
                    "UPDATE drafts SET confirmed_payload = replace(confirmed_payload, 'pothole', 'debris') WHERE confirmed_payload IS NOT NULL"
            )
        }
        let report = try store.verify()
        #expect(report.firstBreak?.recordKind == "draft")
    }

    /// `verify` finds an edited outbox row ("dropped":true → false would publish a
    /// rider-dropped obstacle), an edited trip distance and edited track points.
    @Test(arguments: [
        (
            "outbox",
            "UPDATE outbox SET payload = replace(payload, '\"dropped\":true', '\"dropped\":false') WHERE record_kind = 'confirmation'"
        ),
        ("trip", "UPDATE trips SET distance_m = distance_m * 10 WHERE state = 'closed'"),
        (
            "trip",
            "UPDATE track_points SET lat = lat + 0.001 WHERE time_ns IN (SELECT time_ns FROM track_points ORDER BY time_ns LIMIT 5 OFFSET 40)"
        ),
    ])
    func changingWhatIsPublishedIsReported(kind: String, sql: String) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 2, seconds: 300)
        let id = try #require(try await store.listDrafts().first?.id)
        let dropped = try #require(try await store.draft(id).obstacles.first?.id)
        try store.editDraft(id, .dropObstacle(obstacleID: dropped))
        try store.confirmDraft(id)
        #expect(try store.verify().ok)
        let changed = try await store.pool.write { db -> Int in
            try db.execute(sql: sql)
            return db.changesCount
        }
        #expect(changed > 0, "the edit must hit something: \(sql)")
        let report = try store.verify()
        #expect(report.firstBreak?.recordKind == kind, "\(report)")
        if kind == "outbox" {
            let item = try #require(try await store.outboxPending().first { $0.kind == .confirmation })
            #expect(try await store.outboxIntegrityProblem(item)?.contains("changed after it was queued") == true)
        }
    }
}

@Suite(.ownThreads) struct HashChainEdgeTests {
    /// SQLite stores a NaN REAL as NULL; the hash computed at insert must agree
    /// with the row read back, or verify would cry wolf.
    @Test func nanValuesVerify() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        let t = SampleTime(seconds: 1)
        try writer.append(
            .obstacle(ObstacleEvent(time: t, speed: .nan, kind: .bump, peak: 5, energy: .nan, window: [1, 2], windowRate: 50)), at: t)
        try writer.flush()
        #expect(try store.count("SELECT COUNT(*) FROM events WHERE energy IS NULL AND speed IS NULL") == 1)
        #expect(try store.verify().ok)
        #expect(try store.verify().links == 1)
    }
}
