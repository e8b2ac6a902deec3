import BikePathCore
import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing

/// A recording of nothing but the rider's start and stop markers (a stuck handlebar
/// button, a crafted file): 300,000 of them made 150,000 empty trips, each a draft and
/// an fsync of its own (~4.6 ms: over 60 s), and SIGTERM took 5–7 s. A trip with no fix
/// and no event is not kept, and its end waits for the next ordinary commit.
@Suite(.serialized, .ownThreads) struct PathologicalRecordingTests {
    /// `pairs` start/stop pairs 1 ms apart, then the bundled ride between a start and a stop.
    private func markers(_ dir: TempDir, pairs: Int) throws -> String {
        let (header, records, _) = try RecordingReader.readAll(path: ReplayRunTests.ride)
        let first = try #require(records.first).time.nanoseconds
        let path = dir.file("markers.bpr")
        let writer = try RecordingWriter(path: path, header: header)
        var t = first - Int64(pairs) * 2_000_000 - 1_000_000_000
        for _ in 0..<pairs {
            try writer.append(.marker(SampleTime(nanoseconds: t), .tripStart))
            try writer.append(.marker(SampleTime(nanoseconds: t + 1_000_000), .tripStop))
            t += 2_000_000
        }
        try writer.append(.marker(SampleTime(nanoseconds: first), .tripStart))
        try writer.append(contentsOf: records)
        try writer.append(.marker(SampleTime(nanoseconds: try #require(records.last).time.nanoseconds + 1_000_000_000), .tripStop))
        try writer.close()
        return path
    }

    private func config(_ dir: TempDir) throws -> (config: String, store: String) {
        let store = dir.file("store.sqlite")
        let config = dir.file("bikepathd.toml")
        try "[store]\npath = \"\(store)\"\n[status]\nsocket = \"\(dir.file("status.sock"))\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        return (config, store)
    }

    private func count(_ store: String, _ table: String) throws -> Int {
        let sqlite3 = try #require(executableInPath("sqlite3"), "sqlite3 is not installed (scripts/ensure-deps.sh)")
        return Int(try runProcess(sqlite3, [store, "SELECT COUNT(*) FROM \(table)"]).out.trimmingCharacters(in: .whitespacesAndNewlines))
            ?? -1
    }

    @Test(.timeLimitOnceRunning(.minutes(5))) func emptyTripsAreNotKept() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let recording = try markers(dir, pairs: 150_000)
        let (config, store) = try config(dir)
        let run = try runProcess(bikepathd, ["run", "--config", config, "--replay", recording])
        #expect(run.status == 0, "\(run.err.suffix(2000))")
        #expect(try count(store, "trips") == 1, "only the ride is a trip")
        #expect(try count(store, "drafts") == 1, "only the ride is a draft")
        #expect(run.err.contains("stopped; everything committed"))
    }

    @Test(.timeLimitOnceRunning(.minutes(5))) func sigtermAmidMarkersStopsWithinTwoSeconds() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let recording = try markers(dir, pairs: 150_000)
        let (config, _) = try config(dir)
        let log = dir.file("run.log")
        let daemon = try ChildProcess(
            bikepathd, ["run", "--config", config, "--replay", recording],
            output: URL(fileURLWithPath: log))
        defer { daemon.stop(signal: SIGKILL) }
        let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
        #expect(await waitUntil(polls: 3000, every: .milliseconds(10)) { text().contains("trip") || text().contains("replay") })
        kill(daemon.pid, SIGTERM)
        let status = daemon.waitForExit(timeout: 2)
        #expect(status == 0, "SIGTERM: exit 0 within 2 s, got \(String(describing: status)): \(text().suffix(1500))")
    }
}
