import BikePathFixtures
import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

/// Obstacle review in the store: the obstacle's source and detector figures are stored and
/// hash-chained, a draft asks about at most `reviewBudget` candidates, and a confirmed
/// draft's answers calibrate the detector.
@Suite("Store: obstacle review (source, severity, confidence, strength; budget; answers)", .ownThreads)
struct ReviewTests {
    /// One synthetic trip (9 detected obstacles) whose obstacles get chosen figures, plus
    /// one rider mark. Severity × confidence of detection i: (i + 1) / 10 × (i even ? 0.9 : 0.3).
    func ride(into store: Store) throws {
        let writer = try StoreWriter(store: store)
        var detected = 0
        for (i, item) in SyntheticRides.stream(trips: 1, secondsPerTrip: 400).enumerated() {
            var output = item.output
            if case .obstacle(var e) = output {
                e.severity = Double(detected + 1) / 10
                e.confidence = detected % 2 == 0 ? 0.9 : 0.3
                e.strength = 1 + Double(detected) / 4
                detected += 1
                output = .obstacle(e)
                if detected == 3 {
                    var mark = e
                    mark.time = e.time + 0.5
                    mark.source = .rider
                    (mark.severity, mark.confidence, mark.strength, mark.window) = (0, 1, 0, [])
                    try writer.append(.obstacle(mark), at: item.now, position: Int64(i))
                }
            }
            try writer.append(output, at: item.now, position: Int64(i))
        }
        try writer.flush()
    }

    func open(_ dir: TempDir, budget: Int) throws -> Store {
        var configuration = StoreConfiguration()
        configuration.reviewBudget = budget
        return try Store.open(path: dir.file("s.db"), configuration: configuration)
    }

    @Test("the figures are stored as given and the hash chain covers them")
    func figuresAreStoredAndHashed() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try open(dir, budget: 3)
        try ride(into: store)
        #expect(
            try store.count("SELECT COUNT(*) FROM events WHERE source = 'detected' AND severity > 0 AND confidence > 0 AND strength >= 1")
                == 9)
        #expect(try store.count("SELECT COUNT(*) FROM events WHERE source = 'rider' AND confidence = 1") == 1)
        #expect(try store.verify().ok)
        for column in ["severity", "confidence", "strength"] {
            try store.pool.write { db in
                try db.execute(
                    sql:
                        "UPDATE events SET \(column) = \(column) + 0.01 WHERE source = 'detected' AND rowid = (SELECT MIN(rowid) FROM events WHERE source = 'detected')"
                )
            }
            #expect(!(try store.verify().ok), "changing \(column) breaks the chain")
            try store.pool.write { db in
                try db.execute(
                    sql:
                        "UPDATE events SET \(column) = \(column) - 0.01 WHERE source = 'detected' AND rowid = (SELECT MIN(rowid) FROM events WHERE source = 'detected')"
                )
            }
        }
        try store.pool.write { db in
            try db.execute(
                sql: "UPDATE events SET source = 'rider' WHERE rowid = (SELECT MIN(rowid) FROM events WHERE source = 'detected')")
        }
        #expect(!(try store.verify().ok), "turning a detection into a rider mark breaks the chain")
    }

    @Test("an event linked before schema v3 still verifies after the migration")
    func preV3EventsStillVerify() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("old.db")
        // A v2 store with one obstacle, linked with the v2 hash (14 columns).
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: "v2-retention-indexes")
        try queue.write { db in
            let row: [DatabaseValue] = [
                "e1".databaseValue, DatabaseValue.null, "obstacle".databaseValue, 5.databaseValue,
                DatabaseValue.null, 52.5.databaseValue, 13.4.databaseValue, 4.0.databaseValue,
                "pothole".databaseValue, 7.5.databaseValue, 1.0.databaseValue, DatabaseValue.null,
                DatabaseValue.null, DatabaseValue.null,
            ]
            try db.execute(
                sql: """
                    INSERT INTO events (id, trip_id, kind, time_ns, utc_ns, lat, lon, speed, obstacle_kind, peak, energy,
                                        impact_time_ns, window_rate, window_sha256) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: StatementArguments(row))
            var head: HashChain.Head?
            try HashChain.append(db, kind: "event", id: "e1", recordHash: SHA256Hasher.hash(HashChain.canonicalBytes(row)), head: &head)
        }
        try queue.close()
        let store = try Store.open(path: path)
        #expect(try store.count("PRAGMA user_version") == Int(Schema.currentVersion))
        #expect(try store.verify().ok)
        try store.pool.write { db in try db.execute(sql: "UPDATE events SET severity = 0.5 WHERE id = 'e1'") }
        #expect(!(try store.verify().ok), "a v3 value set on an old row afterwards breaks the chain")
    }

    @Test("the draft asks about the budget's best candidates, holds back the rest, always shows the rider's mark")
    func budget() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try open(dir, budget: 3)
        try ride(into: store)
        let summary = try #require(try await store.listDrafts().first)
        #expect(summary.heldBack == 6)
        #expect(summary.obstacles == 4, "3 asked + the rider's mark")
        let d = try await store.draft(summary.id)
        #expect(d.heldBackCount == 6)
        let asked = d.obstacles.filter { $0.origin == "detected" && !$0.heldBack }
        // Scores: detection i → (i+1)/10 × (0.9 even, 0.3 odd): 8 → 0.81, 6 → 0.63, 4 → 0.45, then 7 → 0.24 …
        #expect(asked.map(\.reviewRank) == [1, 2, 3])
        #expect(asked.map { ($0.severity * $0.confidence * 100).rounded() } == [81, 63, 45])
        let rider = d.obstacles.filter { $0.origin == "rider" }
        #expect(rider.count == 1 && !rider[0].heldBack && rider[0].reviewRank == nil)
        #expect(d.obstacles.filter(\.heldBack).allSatisfy { $0.severity * $0.confidence <= 0.45 })
    }

    @Test("confirming stores the asked candidates' answers and refits; rejecting and held-back say nothing")
    func answersCalibrate() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try open(dir, budget: 100)
        try ride(into: store)
        try ride2(into: store)
        let drafts = try await store.listDrafts()
        // The second draft: rejected, no answers.
        try store.rejectDraft(drafts[1].id)
        #expect(try store.calibrationReport().answers == 0)
        // The first: drop the weak candidates (strength < 2), keep the others.
        let d = try await store.draft(drafts[0].id)
        for o in d.obstacles where o.origin == "detected" && o.strength < 2 {
            try store.editDraft(d.id, .dropObstacle(obstacleID: o.id))
        }
        try store.confirmDraft(d.id)
        let report = try store.calibrationReport()
        #expect(report.answers == 9, "the rider mark is no answer about the detector")
        #expect(report.dropped == 4 && report.kept == 5)
        let sensitivity = try store.detectorSensitivity()
        let expected = SensitivityCalibration.calibrate(try await store.pool.read { try Calibration.answers($0) })
        #expect(sensitivity == expected && !sensitivity.isFactory)
        for kind in ObstacleKind.allCases {
            #expect(sensitivity.scale(for: kind) > 1.75 && sensitivity.scale(for: kind) <= 2, "drops 1…1.75, keeps 2…3")
        }
        try store.resetCalibration()
        #expect(try store.detectorSensitivity().isFactory)
        #expect(try store.calibrationReport().answers == 0)
    }

    /// The same ride again, an hour later (a second trip and draft).
    func ride2(into store: Store) throws {
        let writer = try StoreWriter(store: store)
        var detected = 0
        for (i, item) in SyntheticRides.stream(trips: 1, secondsPerTrip: 400).enumerated() {
            var output = item.output
            switch output {
            case .obstacle(var e):
                e.time = e.time + 3600
                e.strength = 1 + Double(detected) / 4
                detected += 1
                output = .obstacle(e)
            case .tripStarted(let t, let u): output = .tripStarted(t + 3600, u)
            case .tripEnded(var r): r.startTime = r.startTime + 3600; r.endTime = r.endTime + 3600; output = .tripEnded(r)
            case .trackPoint(var p): p.time = p.time + 3600; output = .trackPoint(p)
            case .roadQuality(var q): q.startTime = q.startTime + 3600; q.endTime = q.endTime + 3600; output = .roadQuality(q)
            case .activity(let t, let a): output = .activity(t + 3600, a)
            case .sos: continue
            }
            try writer.append(output, at: item.now + 3600, position: Int64(i))
        }
        try writer.flush()
    }
}
