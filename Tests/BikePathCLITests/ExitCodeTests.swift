import BikePathTestSupport
import Foundation
import Testing

/// Honest exit codes: each command's exit code says what happened (docs/cli.md).
@Suite(.ownThreads) struct ExitCodeTests {
    private func bikepathd() throws -> String { try #require(builtExecutable("bikepathd"), "bikepathd is not built") }
    private let recording = Paths.root + "/Recordings/allthedocks-GX010056.bpr"

    /// `inspect` of a damaged file said what was wrong and exited 0.
    @Test func inspectOfADamagedRecordingExitsTwo() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let cut = dir.file("cut.bpr")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: recording))
        try bytes.prefix(bytes.count / 2 + 3).write(to: URL(fileURLWithPath: cut))
        let intact = try runProcess(try bikepathd(), ["inspect", recording])
        #expect(intact.status == 0 && intact.out.contains("status: intact"))
        let damaged = try runProcess(try bikepathd(), ["inspect", cut])
        #expect(damaged.status == 2, "\(damaged.out)")
        #expect(damaged.out.contains("status: damaged"), "\(damaged.out)")
    }

    /// `decode` without `--json` refused to run although JSON is its only output.
    @Test func decodeNeedsNoFlag() throws {
        let plain = try runProcess(try bikepathd(), ["decode", recording])
        #expect(plain.status == 0, "\(plain.err)")
        let first = try #require(plain.out.split(separator: "\n").first)
        #expect((try JSONSerialization.jsonObject(with: Data(first.utf8)) as? [String: Any])?["mode"] != nil, "\(first)")
        #expect(try runProcess(try bikepathd(), ["decode", "--json", recording]).out == plain.out, "the old flag still works")
    }

    /// `decode` into a full disk stopped writing and exited 0, its output cut short.
    @Test(arguments: ["/Recordings/allthedocks-GX010056.bpr", "/Tests/BikePathSensorsTests/Fixtures/bike.nmea"])
    func decodeIntoAFullDiskFails(_ input: String) throws {
        let full = try runProcess("/bin/sh", ["-c", "exec \"$0\" decode \"$1\" > /dev/full", try bikepathd(), Paths.root + input])
        #expect(full.status == 1, "\(full.err)")
        #expect(full.err.contains("cannot write output: No space left on device"), "\(full.err)")
    }

    /// `record` with no sensor delivering anything wrote an empty recording and exited 0.
    @Test(.timeLimitOnceRunning(.minutes(1))) func recordOfNothingExitsThree() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let r = try runProcess(
            try bikepathd(),
            [
                "record", dir.file("empty.bpr"), "--seconds", "1", "--gpsd-host", "127.0.0.1", "--gpsd-port", "1",
                "--iio-uri", "ip:127.0.0.1:1",
            ])
        #expect(r.status == 3, "\(r.err)")
        #expect(r.err.contains("nothing was recorded"), "\(r.err)")
        let again = try runProcess(
            try bikepathd(), ["record", dir.file("empty.bpr"), "--seconds", "0.1", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1"])
        #expect(again.err.contains("--force"), "the message names the flag that exists: \(again.err)")
        let forced = try runProcess(
            try bikepathd(),
            ["record", dir.file("empty.bpr"), "--force", "--seconds", "0.1", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1"])
        #expect(forced.status == 3, "--force replaces the file: \(forced.err)")
    }

    /// `diagnose` exited 0 with gpsd and the IMU both missing unless `--require` named them.
    @Test(.timeLimitOnceRunning(.minutes(1))) func diagnoseFailsWhenAConfiguredSensorIsMissing() throws {
        let base = [
            "diagnose", "--duration", "0.5", "--gpsd-host", "127.0.0.1", "--gpsd-port", "1", "--iio-uri", "ip:127.0.0.1:1", "--no-store",
        ]
        let missing = try runProcess(try bikepathd(), base)
        #expect(missing.status == 2, "\(missing.out)")
        let narrowed = try runProcess(try bikepathd(), base + ["--require", "none"])
        #expect(narrowed.status == 0, "\(narrowed.out)")
    }
}
