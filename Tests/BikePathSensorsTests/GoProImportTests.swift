import BikePathTestSupport
import Testing
import BikePathCore
@testable import BikePathSensors

@Suite(.ownThreads) struct GoProImportTests {
    static let prefix = Paths.fixtures + "/allthedocks/GX010056"

    static func imported() throws -> (ImportedRecording, GoProCSVImporter.Statistics) {
        try GoProCSVImporter.load(GoProCSVImporter.Files(prefix: prefix))
    }

    @Test func rowCountsAndFirstAndLastValues() throws {
        let (rec, stats) = try Self.imported()
        #expect(stats.imuSamples == textLines(Self.prefix + "-accl.csv").count - 1)
        #expect(stats.gpsRows == textLines(Self.prefix + "-gps.csv").count - 1)
        #expect(stats.nmeaSentences == 2 * stats.gpsRows)
        let imu = rec.records.compactMap { if case .imu(let s) = $0 { s } else { nil } }
        #expect(imu.count == stats.imuSamples)
        // First and last CSV rows, as the Float the recording stores.
        #expect(
            imu.first
                == IMUSample(
                    time: SampleTime(nanoseconds: 0),
                    accel: Vector3(x: Float(8.215827338129497), y: Float(0.1079136690647482), z: Float(5.26378896882494)),
                    gyro: Vector3(x: Float(0.003194888178913738), y: Float(0.029818956336528223), z: Float(-0.005324813631522897))))
        #expect(
            imu.last
                == IMUSample(
                    time: SampleTime(nanoseconds: 11_527_131_980),
                    accel: Vector3(x: Float(7.71462829736211), y: Float(0.09112709832134293), z: Float(6.0215827338129495)),
                    gyro: Vector3(x: Float(-0.007454739084132056), y: Float(0.012779552715654952), z: Float(-0.006389776357827476))))
        let nmea = rec.records.compactMap { if case .nmea(let t, let s) = $0 { (t, s) } else { nil } }
        // Checksums computed independently (python functools.reduce xor).
        // Row 1: 0 ms, 51.523087,-0.1049326, 19.781 m, 1.153 m/s, TS 1688913797599000 µs, DOP 4.20, 3D.
        #expect(nmea[0].0 == SampleTime(nanoseconds: 0))
        #expect(nmea[0].1 == "$GPRMC,144317.599,A,5131.385220,N,00006.295956,W,2.241,,090723,,,A*53")
        #expect(nmea[1].1 == "$GPGGA,144317.599,5131.385220,N,00006.295956,W,1,04,4.20,19.781,M,,,,*12")
        // Last row: 205535 ms, 51.5219691,-0.1094029, 17.671 m, 0.205 m/s, TS 1688914003134000, DOP 1.62.
        #expect(nmea[nmea.count - 2].0 == SampleTime(nanoseconds: 205_535_000_000))
        #expect(nmea[nmea.count - 2].1.hasPrefix("$GPRMC,144643.134,A,5131.318146,N,00006.564174,W,0.398,,090723,,,A*"))
        #expect(nmea.last!.1.hasPrefix("$GPGGA,144643.134,5131.318146,N,00006.564174,W,1,04,1.62,17.671,M,,,,*"))
        #expect(rec.header.createdUTC == UTCTime(nanosecondsSince1970: 1_688_913_797_599_000_000))
        #expect(rec.header.sensors.map(\.id) == ["accel", "gyro", "gnss"])
    }

    @Test func oneClockAcrossIMUAndGPS() throws {
        let (rec, stats) = try Self.imported()
        // The merged stream never goes back in time, so a replay sees IMU and GNSS interleaved.
        for (a, b) in zip(rec.records, rec.records.dropFirst()) { #expect(a.time <= b.time) }
        // Each GPS row's sentences arrive at that row's Milliseconds.
        let gps = try NumericCSV(path: Self.prefix + "-gps.csv", required: ["Milliseconds"]).column("Milliseconds")
        let times = rec.records.compactMap { if case .nmea(let t, _) = $0 { t } else { nil } }
        #expect(times.count == 2 * gps.count)
        for (i, ms) in gps.enumerated() {
            #expect(times[2 * i] == SampleTime(nanoseconds: Int64(ms * 1e6)))
        }
        // The export's overlapping IMU packets were re-spaced by no more than their overlap.
        let raw = try NumericCSV(path: Self.prefix + "-accl.csv", required: ["Milliseconds"]).column("Milliseconds")
        let imuTimes = rec.records.compactMap { if case .imu(let s) = $0 { s.time.seconds * 1000 } else { nil } }
        let backwardSteps = zip(raw, raw.dropFirst()).filter { $1 < $0 }.count
        #expect(backwardSteps == 7)  // lines 593, 790, 987, 1184, 1579, … of the fixture
        #expect(stats.imuTimeRepairs == backwardSteps)
        let moved = zip(raw, imuTimes).map { abs($0 - $1) }
        #expect(moved.max()! < 6 + 5.1)  // the largest overlap plus one sample interval
        #expect(moved.filter { $0 > 1e-3 }.count < 7 * 200)  // only the overrunning packets move
    }

    @Test func gpsOnlyRideImports() throws {
        let (rec, stats) = try GoProCSVImporter.load(.init(gps: Self.prefix + "-gps.csv"))
        #expect(stats.imuSamples == 0 && stats.gpsRows == 3709)
        #expect(rec.header.sensors.map(\.id) == ["gnss"])
    }

    @Test func importedFileReadsBack() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (rec, _) = try Self.imported()
        let path = dir.file("ride.bpr")
        try rec.write(to: path)
        #expect(throws: RecordingFileError.alreadyExists(path: path)) { try rec.write(to: path) }
        try rec.write(to: path, overwrite: true)
        let (header, records, report) = try RecordingReader.readAll(path: path)
        #expect(header == rec.header)
        #expect(records == rec.records)
        #expect(report.isClean)
    }

    @Test func bundledRecordingIsTheWholeRide() throws {
        let (header, records, report) = try RecordingReader.readAll(path: Paths.root + "/Recordings/allthedocks-GX010056.bpr")
        #expect(report.isClean)
        #expect(report.statistics.imuSamples == 40_208)  // rows of GX010056-accl.csv
        #expect(report.statistics.nmeaSentences == 2 * 3_709)  // rows of GX010056-gps.csv
        #expect(header.sourceDetail == "gopro-csv: GX010056-accl.csv, GX010056-gyro.csv, GX010056-gps.csv")
        guard case .imu(let last) = records.last else { Issue.record("last record is not IMU"); return }
        #expect(last.time == SampleTime(nanoseconds: 205_594_923_858))
        #expect(last.accel == Vector3(x: Float(9.402877697841726), y: Float(-0.8009592326139089), z: Float(3.115107913669065)))
    }

    @Test(.enabled(if: Paths.hasSharedDatasets, "needs ../shared/datasets"))
    func bundledRecordingMatchesAFreshImport() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (rec, _) = try GoProCSVImporter.load(.init(prefix: Paths.datasets + "/allthedocks/GX010056"), writer: "bikepathd 0.1.0")
        let path = dir.file("fresh.bpr")
        try rec.write(to: path)
        let identical = readFile(path) == readFile(Paths.root + "/Recordings/allthedocks-GX010056.bpr")
        #expect(identical)  // (a Bool: #expect on the arrays would diff 1.8 MB element by element)
    }
}

@Suite(.ownThreads) struct BadCSVTests {
    static func load(accl: String? = nil, gyro: String? = nil, gps: String? = nil) throws(ImportError) {
        _ = try GoProCSVImporter.load(.init(accl: accl, gyro: gyro, gps: gps))
    }

    static func withFile(_ text: String, _ body: (String) throws -> Void) throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let path = dir.file("x.csv")
        writeFile(path, Array(text.utf8))
        try body(path)
    }

    @Test func wrongFileNamesTheMissingColumn() throws {
        let gps = GoProImportTests.prefix + "-gps.csv"
        #expect(
            throws: ImportError(
                path: gps, line: 1,
                message:
                    "missing column 'AcclX' (found: Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix); is this the right file?"
            )
        ) {
            try Self.load(accl: gps)
        }
    }

    @Test func nonNumericValueNamesLineAndColumn() throws {
        try Self.withFile("Milliseconds,AcclX,AcclY,AcclZ\n0,1,2,3\n5,1,x2,3\n") { path in
            #expect(throws: ImportError(path: path, line: 3, message: "column AcclY: 'x2' is not a number")) { try Self.load(accl: path) }
        }
    }

    @Test func wrongFieldCount() throws {
        try Self.withFile("Milliseconds,AcclX,AcclY,AcclZ\r\n0,1,2,3\r\n5,1,2\r\n") { path in
            #expect(throws: ImportError(path: path, line: 3, message: "expected 4 fields, found 3")) { try Self.load(accl: path) }
        }
    }

    @Test func emptyAndHeaderOnlyFiles() throws {
        try Self.withFile("") { path in
            #expect(
                throws: ImportError(path: path, line: 1, message: "empty file: expected a header line with Milliseconds,AcclX,AcclY,AcclZ")
            ) {
                try Self.load(accl: path)
            }
        }
        try Self.withFile("Milliseconds,AcclX,AcclY,AcclZ\n") { path in
            #expect(throws: ImportError(path: path, line: 2, message: "no data rows after the header")) { try Self.load(accl: path) }
        }
    }

    @Test func timeGoingFarBackwardsIsAnError() throws {
        try Self.withFile("Milliseconds,AcclX,AcclY,AcclZ\n0,1,2,3\n500,1,2,3\n100,1,2,3\n") { path in
            #expect(throws: ImportError(path: path, line: 4, message: "Milliseconds goes backwards (500.0 then 100.0)")) {
                try Self.load(accl: path)
            }
        }
    }

    @Test func gyroThatDoesNotPairWithAccl() throws {
        try Self.withFile("Milliseconds,GyroX,GyroY,GyroZ\n0,1,2,3\n") { path in
            let accl = GoProImportTests.prefix + "-accl.csv"
            #expect(throws: ImportError(path: path, message: "1 rows but GX010056-accl.csv has 2000; accl and gyro rows must pair up")) {
                try Self.load(accl: accl, gyro: path)
            }
            #expect(throws: ImportError(path: path, message: "a gyro CSV needs the matching accl CSV")) { try Self.load(gyro: path) }
        }
    }

    @Test func positionOutOfRange() throws {
        try Self.withFile(
            "Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix\n0,91,0,1,1,1,1688913797599000,100,3\n"
        ) { path in
            #expect(throws: ImportError(path: path, line: 2, message: "position 91.0, 0.0 is out of range")) { try Self.load(gps: path) }
        }
    }

    @Test func impossibleAltitudeAndAccuracyAreRefused() throws {
        let head = "Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix\n"
        try Self.withFile(head + "0,51.5,0,-1000000000,1,1,1688913797599000,100,3\n") { path in
            #expect(throws: ImportError(path: path, line: 2, message: "altitude -1000000000.0 m is out of range −500…9000")) {
                try Self.load(gps: path)
            }
        }
        try Self.withFile(head + "0,51.5,0,12,1,1,1688913797599000,-420,3\n") { path in
            #expect(throws: ImportError(path: path, line: 2, message: "GpsAccuracy -420.0 is out of range 0…9999 (DOP × 100)")) {
                try Self.load(gps: path)
            }
        }
    }
}
