import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing

/// `bikepathd run --replay FILE`: the daemon fed a recording instead of its sensors.
/// It must store what `bikepathd replay` reports for the same file (the daemon's
/// configuration defaults are the chain's), play a damaged file as far as it can be
/// read and say what it skipped, and refuse a file it cannot read with a clear error.
@Suite("bikepathd run --replay: same outputs as replay, damaged and unreadable recordings", .ownThreads)
struct ReplayRunTests {
    static let ride = Paths.root + "/Recordings/allthedocks-GX010056.bpr"

    struct Summary: Decodable { var records: Int; var outputs: Int; var obstacles: Int; var tripsEnded: Int }

    func runReplay(_ recording: String, in dir: TempDir) throws -> (status: Int32, summary: Summary?, err: String) {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let config = dir.file("bikepathd.toml")
        try "[store]\npath = \"\(dir.file("store.sqlite"))\"\n[status]\nsocket = \"\(dir.file("status.sock"))\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        let result = try runProcess(bikepathd, ["run", "--config", config, "--replay", recording, "--summary"])
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase  // docs/json.md: `trips_ended`
        let summary = try? decoder.decode(Summary.self, from: Data(result.out.utf8))
        return (result.status, summary, result.err)
    }

    @Test("the bundled ride: ends by itself, every record played, one trip, and the obstacles `bikepathd replay` finds")
    func sameAsReplay() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, records, _) = try RecordingReader.readAll(path: Self.ride)
        let run = try runReplay(Self.ride, in: dir)
        #expect(run.status == 0, "\(run.err)")
        let summary = try #require(run.summary, "no JSON summary; stderr: \(run.err)")
        #expect(summary.records == records.count)
        #expect(summary.outputs > 0)
        #expect(summary.tripsEnded == 1, "the end of the recording ends its trip")
        #expect(run.err.contains("stopped; everything committed"), "it ended by itself, cleanly: \(run.err)")

        let bikepathd = try #require(builtExecutable("bikepathd"))
        let replay = try runProcess(bikepathd, ["replay", Self.ride, "--json"])
        #expect(replay.status == 0)
        let obstacles = replay.out.split(separator: "\n").filter { $0.contains("\"type\":\"obstacle\"") }.count
        #expect(obstacles > 0)
        #expect(summary.obstacles == obstacles, "run --replay and replay use the same chain settings by default")
    }

    @Test("a corrupt stretch: the rest is played, the problem named, nothing else lost")
    func damagedRecording() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: Self.ride))
        let at = bytes.count * 2 / 5
        bytes.replaceSubrange(at..<(at + 64), with: Data(repeating: 0xFF, count: 64))
        let damaged = dir.file("damaged.bpr")
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let (_, whole, _) = try RecordingReader.readAll(path: Self.ride)
        let (_, readable, report) = try RecordingReader.readAll(path: damaged)
        #expect(!report.problems.isEmpty)

        let run = try runReplay(damaged, in: dir)
        #expect(run.status == 0, "\(run.err)")
        let summary = try #require(run.summary, "no JSON summary; stderr: \(run.err)")
        #expect(summary.records == readable.count, "every readable record is played")
        #expect(summary.records < whole.count)
        #expect(summary.tripsEnded == 1)
        #expect(run.err.contains("problem(s), skipped: corrupt"), "\(run.err)")
    }

    @Test("not a recording, a directory, a missing file: a clear error naming it, exit 1, no store made")
    func unreadable() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let text = dir.file("notes.txt")
        try "not a recording\n".write(toFile: text, atomically: true, encoding: .utf8)
        for path in [text, dir.path, dir.file("missing.bpr")] {
            let run = try runReplay(path, in: dir)
            #expect(run.status == 1, "\(path): \(run.err)")
            #expect(run.err.contains(path), "the error names the file: \(run.err)")
            #expect(run.summary == nil)
            #expect(!FileManager.default.fileExists(atPath: dir.file("store.sqlite")), "refused before anything is written")
        }
    }
}
