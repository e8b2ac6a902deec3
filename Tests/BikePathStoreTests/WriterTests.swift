import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct WriterTests {
    private func point(_ seconds: Double, lon: Double) -> ChainOutput {
        .trackPoint(
            TrackPoint(
                time: SampleTime(seconds: seconds), utc: nil,
                coordinate: Coordinate(latitude: 52.5, longitude: lon), altitudeMSL: nil, speed: 5))
    }

    /// Rows visible to another connection, i.e. committed.
    private func committedPoints(_ path: String) throws -> Int {
        let reader = try DatabaseQueue(path: path)
        defer { try? reader.close() }
        return try reader.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM track_points") ?? 0 }
    }

    @Test func commitsOnceASecondOfSampleTimeHasPassed() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        var policy = WriterPolicy()
        policy.minPointSeconds = 0
        policy.minPointDistanceMeters = 0
        let writer = try StoreWriter(store: store, policy: policy)
        try writer.append(.tripStarted(SampleTime(seconds: 10), nil), at: SampleTime(seconds: 10))
        for i in 0..<10 {
            try writer.append(point(10 + Double(i) * 0.1, lon: 13 + Double(i) * 1e-4), at: SampleTime(seconds: 10 + Double(i) * 0.1))
        }
        #expect(try committedPoints(dir.file("s.db")) == 0)
        // A quiet tick (no output) one second after the batch began commits it.
        try writer.tick(at: SampleTime(seconds: 11))
        #expect(try committedPoints(dir.file("s.db")) == 10)
    }

    @Test func commitsAfterMaxRows() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        var policy = WriterPolicy()
        policy.maxBatchRows = 5
        policy.minPointSeconds = 0
        policy.minPointDistanceMeters = 0
        let writer = try StoreWriter(store: store, policy: policy)
        try writer.append(.tripStarted(SampleTime(seconds: 0), nil), at: SampleTime(seconds: 0))
        for i in 0..<4 { try writer.append(point(Double(i) * 0.01, lon: 13 + Double(i) * 1e-4), at: SampleTime(seconds: Double(i) * 0.01)) }
        #expect(try committedPoints(dir.file("s.db")) == 4)
    }

    @Test func sosCommitsAtOnceAndIsQueuedFirst() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        let t = SampleTime(seconds: 5)
        try writer.append(.sos(SOSEvent(time: t, impactTime: SampleTime(seconds: 2), impactPeak: 40, lastFix: nil)), at: t)
        let items = try await store.outboxPending()
        #expect(items.map(\.kind) == [.sos])
        #expect(try store.count("SELECT COUNT(*) FROM events WHERE kind = 'sos'") == 1)
    }

    @Test func sosKeepsItsReviewWindowUnderTheHashChain() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        let t = SampleTime(seconds: 5)
        let window: [Float] = (0..<800).map { Float($0 % 17) - 8 }
        try writer.append(
            .sos(
                SOSEvent(
                    time: t, impactTime: SampleTime(seconds: 2), impactPeak: 40, lastFix: nil,
                    window: window, windowRate: 200)), at: t)
        let (rate, blob) = try #require(
            try store.pool.read { db in
                try Row.fetchOne(
                    db,
                    sql: """
                        SELECT e.window_rate, w.samples FROM events e JOIN event_windows w ON w.event_id = e.id WHERE e.kind = 'sos'
                        """
                ).map { (row: Row) -> (Double, Data) in (row[0], row[1]) }
            })
        #expect(rate == 200)
        #expect(blob.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) } == window)
        let report = try store.verify()
        // The SOS event and its outbox record.
        #expect(report.ok && report.links == 2, "the window hash is part of the SOS row: \(report)")
    }

    @Test func downsamplesByDistanceAndTime() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)  // ≥3 m and ≥1 s, or ≥15 s
        try writer.append(.tripStarted(SampleTime(seconds: 0), nil), at: SampleTime(seconds: 0))
        // 10 Hz fixes riding at 5 m/s: one in ten is kept.
        for i in 0..<100 {
            let s = Double(i) * 0.1
            try writer.append(point(s, lon: 13 + s * 5 / 67_800), at: SampleTime(seconds: s))
        }
        // Standing still for 40 s at 1 Hz: kept every 15 s only.
        for i in 1...40 { try writer.append(point(10 + Double(i), lon: 13 + 10 * 5 / 67_800), at: SampleTime(seconds: 10 + Double(i))) }
        try writer.flush()
        let times = try store.pool.read { db in
            try Int64.fetchAll(db, sql: "SELECT time_ns / 100000000 FROM track_points ORDER BY time_ns")
        }
        // 11 s is the first stopped fix (5 m on from the 9 s one); then 26 s and 41 s.
        #expect(times == [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 110, 260, 410])
    }

    @Test func pointsOutsideATripAreNotStored() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        try writer.append(point(1, lon: 13), at: SampleTime(seconds: 1))
        try writer.flush()
        #expect(try store.count("SELECT COUNT(*) FROM track_points") == 0)
    }

    @Test func obstacleWindowIsStoredAsFloat32() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        let window: [Float] = [0, 1.5, -2.25, 9.81, .greatestFiniteMagnitude]
        let t = SampleTime(seconds: 3)
        try writer.append(.obstacle(ObstacleEvent(time: t, kind: .pothole, peak: 7, energy: 1, window: window, windowRate: 100)), at: t)
        try writer.flush()
        let blob = try store.pool.read { db in try Data.fetchOne(db, sql: "SELECT samples FROM event_windows") }
        #expect(blob?.count == window.count * 4)
        #expect(Ingest.floats(try #require(blob)) == window)
    }
}
