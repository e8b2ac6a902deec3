import BikePathCore
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

/// `bikepathd record` against the real gpsd (fed over UDP) and the fake IMU behind iiod:
/// the chain's outputs written live equal, byte for byte, those of `bikepathd replay --json`
/// on the recording it wrote. A `bikepathd mark` during the recording is written as a
/// rider label and is part of both.
@Suite("record, then replay: same outputs", .serialized, .ownThreads)
struct RecordReplayRealTests {
    @Test(
        "replaying the recording gives the live run's outputs, byte for byte",
        .enabled(
            if: RealDaemons.shouldRun(["gpsd", "iiod", "unshare"], needsRoot: true),
            "needs root, gpsd, iiod, unshare and python3 (skipped locally; required on CI)"),
        .timeLimitOnceRunning(.minutes(1)))
    func recordThenReplay() async throws {
        guard RealDaemons.check(["gpsd", "iiod", "unshare"], needsRoot: true) else { return }
        let bikepathd = try #require(RealDaemons.bikepathd, "bikepathd is not built")
        let scratch = try TempDir()
        defer { scratch.cleanup() }
        let gpsd = GPSDSourceRealTests.Gpsd()
        try gpsd.start()
        defer { gpsd.kill() }
        let imu = try FakeIMU()
        try imu.start()
        defer { imu.stop() }

        let recording = scratch.url.appendingPathComponent("live.bpr").path
        let liveOutputs = scratch.url.appendingPathComponent("live.jsonl").path
        let markSocket = scratch.url.appendingPathComponent("mark.sock").path
        let recorder = try ChildProcess(
            bikepathd,
            [
                "record", recording, "--outputs", liveOutputs, "--gpsd-host", "127.0.0.1", "--gpsd-port", "\(gpsd.port)",
                "--iio-uri", imu.uri, "--imu-rate", "100", "--mark-socket", markSocket,
            ], output: scratch.url.appendingPathComponent("record.log"))
        defer { recorder.stop(signal: SIGKILL) }
        try await Task.sleep(nanoseconds: 1_500_000_000)  // connected to gpsd and iiod, WATCH registered
        try gpsd.feedLive(hz: 5, seconds: 8)
        let mark = try await runProcess(bikepathd, ["mark", "debris", "--socket", markSocket])
        #expect(mark.status == 0 && mark.out.hasPrefix("marked debris"), "\(mark)")
        try await Task.sleep(nanoseconds: 1_000_000_000)
        kill(recorder.pid, SIGINT)
        let log = { (try? String(contentsOf: scratch.url.appendingPathComponent("record.log"), encoding: .utf8)) ?? "" }
        #expect(recorder.waitForExit() == 0, "record exits cleanly on SIGINT: \(log())")

        let (_, records, report) = try RecordingReader.readAll(path: recording)
        #expect(report.isClean, "the recording was closed cleanly: \(report.problems)")
        let nmea = records.filter { if case .nmea = $0 { true } else { false } }.count
        let samples = records.filter { if case .imu = $0 { true } else { false } }.count
        #expect(nmea >= 5 * 8 * 2, "every epoch's RMC and GGA were recorded (\(nmea) sentences)")
        #expect(samples >= 100 * 8, "the IMU was recorded (\(samples) samples)")
        #expect(records.map(\.time) == records.map(\.time).sorted(), "records are in receive-time order")
        let labels = records.compactMap { r -> ObstacleKind? in if case .label(_, let k) = r { k } else { nil } }
        #expect(labels == [.debris], "the mark is in the recording as a rider label")

        let replayed = scratch.url.appendingPathComponent("replay.jsonl")
        #expect(FileManager.default.createFile(atPath: replayed.path, contents: nil))
        let replay = try ChildProcess(
            bikepathd, ["replay", recording, "--json"], output: replayed, errorOutput: URL(fileURLWithPath: "/dev/null"))
        #expect(replay.waitForExit(timeout: 300) == 0, "the replay ended with status 0 within 300 s")

        let live = try Data(contentsOf: URL(fileURLWithPath: liveOutputs))
        let again = try Data(contentsOf: replayed)
        let lines = String(decoding: live, as: UTF8.self).split(separator: "\n")
        #expect(lines.contains { $0.contains("\"activity\"") }, "the live chain produced outputs: \(lines.count) lines")
        #expect(lines.contains { $0.contains("\"source\":\"rider\"") }, "the mark is a rider obstacle in the outputs")
        #expect(live == again, "replay outputs equal the live outputs byte for byte")
    }
}
