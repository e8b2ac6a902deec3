import BikePathCore
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathSensors

/// Inputs an adversarial pass crafted: each used to crash a tool with an overflow
/// trap (exit 132) or to cost unbounded time or memory. Each now gets a clear error,
/// or is read as far as it makes sense, and nothing traps.
@Suite(.ownThreads) struct CraftedInputTests {
    /// A recording start with exactly this header text (valid CRC).
    static func fileStart(_ headerText: String) -> [UInt8] {
        let bytes = Array(headerText.utf8)
        var out = RecordingFormat.magic
        for i in 0..<2 { out.append(UInt8(truncatingIfNeeded: RecordingFormat.version >> (8 * i))) }
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: UInt32(bytes.count) >> (8 * i))) }
        out += bytes
        let crc = bytes.withUnsafeBytes { CRC32.checksum($0) }
        for i in 0..<4 { out.append(UInt8(truncatingIfNeeded: crc >> (8 * i))) }
        return out
    }

    static func le(_ v: Int64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    static func bikepathd() throws -> String { try #require(builtExecutable("bikepathd"), "bikepathd is not built") }

    /// Killed by a signal (a trap is SIGILL, 132) rather than exiting.
    static func trapped(_ status: Int32) -> Bool { status >= 128 }

    @Test("created-utc outside 1678–2262: a header error naming the line, for inspect, replay and run --replay")
    func headerYearOutOfRange() throws {
        for year in ["9999", "1600", "2263"] {
            let text = "clock=monotonic-ns\ncreated-utc=\(year)-01-01T00:00:00Z\nsource=test\n"
            #expect(throws: RecordingHeaderError.self) { try RecordingHeader(text: text) }
            do {
                _ = try RecordingHeader(text: text)
            } catch {
                #expect("\(error)".contains("outside 1678–2262"), "\(error)")
            }
            let dir = try TempDir()
            defer { dir.cleanup() }
            let path = dir.file("year.bpr")
            var bytes = Self.fileStart(text)
            RecordingEncoder.appendMarker(.tripStart, at: SampleTime(nanoseconds: 1), to: &bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for arguments in [
                ["inspect", path], ["replay", path],
                ["run", "--store", dir.file("s.db"), "--status-socket", dir.file("s.sock"), "--replay", path],
            ] {
                let run = try runProcess(try Self.bikepathd(), arguments)
                #expect(!Self.trapped(run.status) && run.status != 0, "\(arguments[0]): \(run.status) \(run.err)")
                #expect(run.err.contains("outside 1678–2262"), "\(arguments[0]): \(run.err)")
            }
        }
        #expect(try RecordingHeader(text: "created-utc=2262-04-11T00:00:00Z\nsource=x\n").createdUTC != nil)
        #expect(try RecordingHeader(text: "created-utc=1678-01-01T00:00:00Z\nsource=x\n").createdUTC != nil)
    }

    @Test("record times at the ends of Int64 (valid CRCs): inspect, replay and run --replay finish without a trap")
    func extremeRecordTimes() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("extreme.bpr")
        var bytes = Self.fileStart("clock=monotonic-ns\nsource=test\n")
        for t in [Int64.min, 0, .max, .min + 1, -1, .max - 1] {
            RecordingEncoder.appendMarker(.tripStart, at: SampleTime(nanoseconds: t), to: &bytes)
            // An IMU block whose 4.29 s steps run past Int64.max.
            var payload = Self.le(t) + [2, 0, 0]
            for _ in 0..<2 { payload += [0xFF, 0xFF, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 12) }
            RecordingEncoder.appendRaw(kind: 2, payload: payload, to: &bytes)
            try RecordingEncoder.appendNMEA(
                NMEAWriter.sentence(body: "GPRMC,230000.00,A,4807.038,N,01131.000,E,1e300,084.4,300626,,,A"),
                at: SampleTime(nanoseconds: t), to: &bytes)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let (_, records, _) = try RecordingReader.readAll(path: path)
        #expect(records.count == 6 * 4)
        for arguments in [
            ["inspect", path], ["replay", path, "--json"],
            ["run", "--store", dir.file("s.db"), "--status-socket", dir.file("s.sock"), "--replay", path],
        ] {
            let run = try runProcess(try Self.bikepathd(), arguments)
            #expect(run.status == 0, "\(arguments[0]) exited \(run.status): \(run.err.suffix(2000))")
        }
    }

    @Test("SampleTime arithmetic saturates instead of trapping")
    func sampleTimeArithmetic() {
        let max = SampleTime(nanoseconds: .max), min = SampleTime(nanoseconds: .min)
        #expect(max - min > 1.8e10 && (max - min).isFinite)
        #expect(min - max < -1.8e10)
        #expect((max + 10).nanoseconds == .max)
        #expect((min + -10).nanoseconds == .min)
        #expect((SampleTime(nanoseconds: 5) + .nan).nanoseconds == 5)
        #expect(SampleTime(seconds: 1e300).nanoseconds == .max)
        #expect(SampleTime(nanoseconds: 3) - SampleTime(nanoseconds: 1) == 2e-9)
    }

    @Test("GoPro Milliseconds of 1e13, 1e300 or -9e12: an error naming file, line and rule")
    func goProMillisecondsOutOfRange() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        for value in ["1e13", "1e300", "-9e12"] {
            let accl = dir.file("r-accl.csv")
            try "Milliseconds,AcclX,AcclY,AcclZ\n0,0,0,9.8\n\(value),0,0,9.8\n".write(toFile: accl, atomically: true, encoding: .utf8)
            #expect(throws: ImportError.self) { try GoProCSVImporter.load(.init(accl: accl)) }
            do { _ = try GoProCSVImporter.load(.init(accl: accl)) } catch {
                #expect(error.line == 3 && error.message.contains("out of range"), "\(error)")
            }
            let gps = dir.file("r-gps.csv")
            try """
            Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix
            \(value),51.5,-0.1,10,1,1,1688913797599000,420,3

            """.write(toFile: gps, atomically: true, encoding: .utf8)
            do { _ = try GoProCSVImporter.load(.init(gps: gps)); Issue.record("\(value) accepted") } catch {
                #expect(error.line == 2 && error.message.contains("out of range"), "\(error)")
            }
        }
    }

    @Test("A gpsd log whose times flip between 23:00:00 and 00:00:00 does not overflow the day offset")
    func gpsdDayFlipFlop() {
        let sentences = (0..<250_000).map { i in
            NMEAWriter.sentence(body: "GPRMC,\(i % 2 == 0 ? "230000" : "000000").00,A,4807.038,N,01131.000,E,1.0,084.4,300626,,,A")
        }
        let times = GpsdLogImporter.synthesizeReceiveTimes(sentences)
        #expect(times.count == sentences.count)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "receive times never go back")
    }

    @Test("A GoPro CSV without a newline: refused at its first line, with a short message")
    func noNewline() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("long-accl.csv")
        try Data(repeating: UInt8(ascii: "7"), count: 8 << 20).write(to: URL(fileURLWithPath: path))
        do { _ = try GoProCSVImporter.load(.init(accl: path)); Issue.record("accepted") } catch {
            #expect(error.line == 1 && error.message.contains("over 4096"), "\(error.message.prefix(200))")
            #expect("\(error)".utf8.count < 500, "the message quotes no megabytes of input")
        }
    }

    @Test("A FIFO at the store path is refused at once (SQLite would wait on it for ever)")
    func fifoStore() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let fifo = dir.file("store.sqlite")
        #expect(mkfifo(fifo, 0o600) == 0)
        let log = dir.file("run.log")
        let child = try ChildProcess(
            try Self.bikepathd(),
            [
                "run", "--store", fifo, "--status-socket", dir.file("s.sock"),
                "--replay", Paths.root + "/Recordings/allthedocks-GX010056.bpr",
            ], output: URL(fileURLWithPath: log))
        let status = child.waitForExit(timeout: 30)
        if status == nil { child.stop(signal: SIGKILL) }
        #expect(status == 1, "run must not hang on a FIFO")
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(text.contains("is not a regular file"), "\(text)")
    }

    @Test("--config /dev/null is an empty configuration, not a permission problem; a FIFO is named as one")
    func configFromDevices() throws {
        let check = try runProcess(try Self.bikepathd(), ["config", "check", "/dev/null"])
        #expect(check.status == 0, "\(check.err)")
        #expect(!check.err.lowercased().contains("permission"), "\(check.err)")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let fifo = dir.file("bikepathd.toml")
        #expect(mkfifo(fifo, 0o600) == 0)
        let child = try ChildProcess(
            try Self.bikepathd(), ["config", "check", fifo],
            output: URL(fileURLWithPath: dir.file("check.log")))
        let status = child.waitForExit(timeout: 30)
        if status == nil { child.stop(signal: SIGKILL) }
        #expect(status != nil && status != 0, "a FIFO is refused, not waited on")
        let text = (try? String(contentsOfFile: dir.file("check.log"), encoding: .utf8)) ?? ""
        #expect(text.contains("is a FIFO"), "\(text)")
    }
}
