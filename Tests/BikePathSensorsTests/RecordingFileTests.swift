import BikePathTestSupport
import Testing
import BikePathCore
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

@Suite(.ownThreads) struct RecordingFileTests {
    static let header = RecordingHeader(
        source: "live", sourceDetail: "test rig",
        sensors: [
            .init(id: "accel", kind: "accelerometer", name: "lsm6dsl", rateHz: 208, unit: "m/s^2", scale: 0.000598)
        ])

    /// 300 IMU samples with gyro at 200 Hz, a sentence every 20th sample, and markers.
    static func records() -> [SensorRecord] {
        var out: [SensorRecord] = [.marker(SampleTime(nanoseconds: 0), .tripStart)]
        for i in 0..<300 {
            let t = SampleTime(nanoseconds: Int64(i) * 5_000_000 + 1)
            let f = Float(i)
            out.append(.imu(IMUSample(time: t, accel: Vector3(x: f, y: -f, z: 9.81), gyro: Vector3(x: f / 100, y: 0, z: 1))))
            if i % 20 == 0 { out.append(.nmea(t, "$GPZDA,1835\(i),23,12,2007,00,00*6C")) }
        }
        out.append(.marker(SampleTime(nanoseconds: 2_000_000_000), .tripStop))
        return out
    }

    @Test func writeThenReadGivesTheSameRecords() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("ride.bpr")
        let writer = try RecordingWriter(path: path, header: Self.header, imuBlockSize: 64)
        try writer.append(contentsOf: Self.records())
        try writer.close()
        #expect(throws: RecordingFileError.closed(path: path)) { try writer.append(.marker(SampleTime(nanoseconds: 3), .tripStop)) }
        for chunk in [64, 1000, 1 << 20] {
            let reader = try RecordingReader(path: path, chunkSize: chunk)
            #expect(reader.header == Self.header)
            var got: [SensorRecord] = []
            let report = try reader.forEach { got.append($0) }
            #expect(got == Self.records())
            #expect(report.isClean)
            #expect(report.statistics.imuSamples == 300)
            #expect(report.statistics.imuBlocks > 300 / 64)
        }
    }

    @Test func refusesToOverwriteUnlessAsked() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("ride.bpr")
        try RecordingWriter(path: path, header: Self.header).close()
        #expect(throws: RecordingFileError.alreadyExists(path: path)) { try RecordingWriter(path: path, header: Self.header) }
        try RecordingWriter(path: path, header: Self.header, overwrite: true).close()
    }

    @Test func flushedRecordsAreReadableWhileTheWriterIsOpen() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("live.bpr")
        let writer = try RecordingWriter(path: path, header: Self.header, syncPolicy: .everyFlush)
        let records = Self.records()
        try writer.append(contentsOf: records.prefix(100))
        try writer.flush()
        let (_, got, report) = try RecordingReader.readAll(path: path)
        #expect(got == Array(records.prefix(100)))
        #expect(report.problems.isEmpty)
        try writer.close()
    }

    @Test func fileCutInsideTheLastRecordReadsEveryCompleteRecord() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("cut.bpr")
        let records = Self.records()
        let writer = try RecordingWriter(path: path, header: Self.header)
        try writer.append(contentsOf: records)
        try writer.close()
        let full = readFile(path)
        let lastRecordLength = RecordingFormat.recordOverhead + 9  // the tripStop marker
        for cut in (full.count - lastRecordLength)..<full.count {
            writeFile(path, Array(full[..<cut]))
            let (_, got, report) = try RecordingReader.readAll(path: path)
            #expect(got == Array(records.dropLast()))
            #expect(report.isTruncated == (cut > full.count - lastRecordLength))
        }
    }

    @Test func corruptByteIsReportedWithItsOffset() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("bad.bpr")
        let writer = try RecordingWriter(path: path, header: Self.header)
        try writer.append(contentsOf: Self.records())
        try writer.close()
        var bytes = readFile(path)
        let at = bytes.count / 2
        bytes[at] ^= 0x40
        writeFile(path, bytes)
        let (_, got, report) = try RecordingReader.readAll(path: path)
        #expect(report.statistics.corruptRegions == 1)
        guard case .corrupt(let offset, let length)? = report.problems.first else {
            Issue.record("not reported: \(report.problems)"); return
        }
        #expect(offset <= at && at < offset + length)
        #expect(got.last == Self.records().last)  // resynced after the damage
        #expect(report.problems.first?.description.contains("corrupt") == true)
    }

    @Test func clearErrorsForFilesThatCannotBeRead() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let csv = Paths.fixtures + "/allthedocks/GX010056-gps.csv"
        #expect(!RecordingReader.isRecording(path: csv))
        #expect(RecordingReader.isRecording(path: Paths.root + "/Recordings/allthedocks-GX010056.bpr"))
        #expect(throws: RecordingFileError.unreadable(path: csv, .notARecording)) { try RecordingReader(path: csv) }
        let missing = dir.file("missing.bpr")
        #expect(throws: RecordingFileError.cannotOpen(path: missing, errno: ENOENT)) { try RecordingReader(path: missing) }

        let path = dir.file("v9.bpr")
        var bytes = try RecordingEncoder.fileStart(Self.header)
        bytes[8] = 9
        writeFile(path, bytes)
        do {
            _ = try RecordingReader(path: path)
            Issue.record("version 9 accepted")
        } catch {
            #expect(error == .unreadable(path: path, .unsupportedVersion(9)))
            #expect(error.description == "\(path): recording format version 9 is not supported (this build reads version 1)")
        }
    }
}
