import BikePathCore
import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing

/// `run --replay` killed with SIGKILL and started again, over and over, must leave
/// the same trips as one clean run: a trip's id comes from the store's device key
/// and the trip's start, so a replay that plays a start again continues (or skips)
/// that trip instead of storing it a second time. A repeated run adds nothing.
@Suite(.serialized, .ownThreads) struct ReplayKillTests {
    /// The bundled ride three times, an hour apart, each between the rider's start and
    /// stop markers (a gap without samples does not end a trip by itself).
    private func threeRides(_ dir: TempDir) throws -> String {
        let (header, records, _) = try RecordingReader.readAll(path: ReplayRunTests.ride)
        let first = try #require(records.first).time.nanoseconds
        let last = try #require(records.last).time.nanoseconds
        let path = dir.file("three.bpr")
        let writer = try RecordingWriter(path: path, header: header)
        for copy in 0..<3 {
            let shift = Int64(copy) * (last - first + 3_600_000_000_000)
            try writer.append(.marker(SampleTime(nanoseconds: first + shift), .tripStart))
            try writer.append(contentsOf: records.map { $0.shifted(by: shift) })
            try writer.append(.marker(SampleTime(nanoseconds: last + shift + 1_000_000_000), .tripStop))
        }
        try writer.close()
        return path
    }

    private func config(_ dir: TempDir, _ name: String) throws -> (config: String, store: String) {
        let store = dir.file(name + ".sqlite")
        let config = dir.file(name + ".toml")
        try "[store]\npath = \"\(store)\"\n[status]\nsocket = \"\(dir.file(name + ".sock"))\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        return (config, store)
    }

    private func sql(_ store: String, _ query: String) throws -> String {
        let sqlite3 = try #require(executableInPath("sqlite3"), "sqlite3 is not installed (scripts/ensure-deps.sh)")
        return try runProcess(sqlite3, [store, query]).out
    }

    /// What a run leaves, independent of the store's device key (ids differ between stores).
    private func contents(_ store: String) throws -> String {
        try sql(
            store,
            """
            SELECT 'trip', seq, state, closed_by, start_time_ns, end_time_ns, round(distance_m, 3) FROM trips ORDER BY seq;
            SELECT 'points', COUNT(*) FROM track_points;
            SELECT 'events', kind, time_ns FROM events ORDER BY kind, time_ns;
            SELECT 'drafts', COUNT(*) FROM drafts;
            SELECT 'outbox', record_kind, COUNT(*) FROM outbox GROUP BY record_kind;
            SELECT 'road', COUNT(*) FROM road_quality;
            """)
    }

    @Test(.timeLimitOnceRunning(.minutes(10))) func killedAndRepeatedReplayLeavesTheSameTrips() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let recording = try threeRides(dir)

        let clean = try config(dir, "clean")
        let once = try runProcess(bikepathd, ["run", "--config", clean.config, "--replay", recording])
        #expect(once.status == 0, "\(once.err)")
        let expected = try contents(clean.store)
        // The copies' NMEA repeats the first ride's UTC times, so their fixes are refused:
        // the second trip is kept for its obstacles, the third has no fix and no event and
        // is not kept (docs/storage.md, "Trips with no fix").
        #expect(try sql(clean.store, "SELECT COUNT(*) FROM trips").trimmingCharacters(in: .whitespacesAndNewlines) == "2", "\(expected)")
        let cleanPoints =
            Int(try sql(clean.store, "SELECT COUNT(*) FROM track_points").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(cleanPoints > 100)

        // Five SIGKILLs, each once the store holds a further share of the ride's points.
        let killed = try config(dir, "killed")
        var idsSeen: [String: String] = [:]
        for share in [0.1, 0.3, 0.5, 0.7, 0.9] {
            let child = try ChildProcess(
                bikepathd, ["run", "--config", killed.config, "--replay", recording],
                output: URL(fileURLWithPath: dir.file("killed.log")))
            let deadline = Date().addingTimeInterval(120)
            while Date() < deadline, child.waitForExit(timeout: 0.05) == nil {
                let points =
                    Int(try sql(killed.store, "SELECT COUNT(*) FROM track_points").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if Double(points) >= share * Double(cleanPoints) { break }
            }
            child.stop(signal: SIGKILL)
            // Every trip seen so far keeps its id: nothing is re-created under a new one.
            for line in try sql(killed.store, "SELECT start_time_ns, id FROM trips").split(separator: "\n") {
                let f = line.split(separator: "|").map(String.init)
                guard f.count == 2 else { continue }
                if let before = idsSeen[f[0]] { #expect(before == f[1], "trip starting at \(f[0]) changed id") }
                idsSeen[f[0]] = f[1]
            }
        }
        let finish = try runProcess(bikepathd, ["run", "--config", killed.config, "--replay", recording])
        #expect(finish.status == 0, "\(finish.err)")
        #expect(try contents(killed.store) == expected, "five kills and a restart leave what one clean run leaves")
        #expect(try sql(killed.store, "PRAGMA integrity_check").trimmingCharacters(in: .whitespacesAndNewlines) == "ok")

        // Once more: idempotent, with the same ids.
        let ids = try sql(killed.store, "SELECT id FROM trips ORDER BY seq")
        let again = try runProcess(bikepathd, ["run", "--config", killed.config, "--replay", recording])
        #expect(again.status == 0, "\(again.err)")
        #expect(try contents(killed.store) == expected)
        #expect(try sql(killed.store, "SELECT id FROM trips ORDER BY seq") == ids)
    }
}
