import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathSensors

/// Structure-aware fuzzing, seeded (SplitMix64) and bounded so it runs in every CI
/// run (with Fuzz/Targets/RecordingStructureFuzz, which does the same to the recording
/// codec under libFuzzer): valid inputs whose FIELDS are set to extreme values — record
/// times at the ends of Int64, NaN and huge samples, NMEA times at midnight's edges
/// (with fresh CRCs and checksums), CSV numbers like 1e13, 1e300, −9e12. Every input
/// must end in a result or a typed error; a trap kills the test process.
@Suite(.ownThreads) struct StructureAwareFuzzTests {
    static let extremeNumbers = [
        "1e13", "1e300", "-9e12", "-0", "0", "9.2e15", "-1e308", "4.9e-324", "9223372036854775807",
        "-9223372036854775808", "123456789012345678901234567890", "1e-7", "-1",
    ]
    static let extremeTimes: [Int64] = [.min, .max, .min + 1, .max - 1, 0, -1, 1 << 53, -(1 << 53), 1 << 62, -(1 << 62)]

    private func number(_ rng: inout SplitMix64, normal: Double) -> String {
        rng.next() % 4 == 0 ? Self.extremeNumbers[Int(rng.next() % UInt64(Self.extremeNumbers.count))] : "\(normal)"
    }

    @Test("GoPro CSVs with extreme numbers in any field: imported and read back, or a typed error")
    func goProFields() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var rng = SplitMix64(state: 0x6F50_2016)
        var imported = 0, refused = 0
        for round in 0..<300 {
            let rows = Int(rng.next() % 12) + 2
            var accl = "Milliseconds,AcclX,AcclY,AcclZ\n",
                gps = "Milliseconds,Latitude,Longitude,Altitude,Speed,Speed3D,TS,GpsAccuracy,GpsFix\n"
            for i in 0..<rows {
                let ms = number(&rng, normal: Double(i) * 5)
                accl += "\(ms),\(number(&rng, normal: 0.1)),\(number(&rng, normal: 0.2)),\(number(&rng, normal: 9.8))\n"
                gps +=
                    "\(number(&rng, normal: Double(i) * 100)),\(number(&rng, normal: 51.5)),\(number(&rng, normal: -0.1)),"
                    + "\(number(&rng, normal: 20)),\(number(&rng, normal: 3)),0,\(number(&rng, normal: 1_688_913_797_599_000 + Double(i) * 100_000)),"
                    + "\(number(&rng, normal: 420)),\(number(&rng, normal: 3))\n"
            }
            try accl.write(toFile: dir.file("f-accl.csv"), atomically: true, encoding: .utf8)
            try gps.write(toFile: dir.file("f-gps.csv"), atomically: true, encoding: .utf8)
            do {
                let (recording, _) = try GoProCSVImporter.load(.init(prefix: dir.file("f")))
                let out = dir.file("out-\(round).bpr")
                try recording.write(to: out)
                let (_, back, _) = try RecordingReader.readAll(path: out)
                #expect(back.count == recording.records.count)
                var pipeline = Pipeline()
                _ = pipeline.process(back) + pipeline.finish()
                imported += 1
            } catch let error as ImportError {
                #expect(error.description.utf8.count < 1000)
                refused += 1
            }
        }
        #expect(imported > 0 && refused > 0, "both paths exercised: \(imported) imported, \(refused) refused")
    }

    @Test("gpsd logs whose time fields sit at midnight's edges or anywhere: imported with receive times that never go back")
    func gpsdLogFields() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var rng = SplitMix64(state: 0x6450_2016)
        let times = ["230000", "000000", "235959.999", "120000", "000000.001", "99", "", "2400", "236000"]
        for round in 0..<100 {
            var log = "# Name: fuzz\n"
            for _ in 0..<Int(rng.next() % 3000) {
                let t =
                    rng.next() % 3 == 0
                    ? String(String(Int(rng.next() % 240_000) + 1_000_000).dropFirst()) : times[Int(rng.next() % UInt64(times.count))]
                let type = ["GPRMC", "GPGGA", "GPZDA", "GPGLL"][Int(rng.next() % 4)]
                let body =
                    type == "GPGLL" ? "\(type),4807.038,N,01131.000,E,\(t),A" : "\(type),\(t),A,4807.038,N,01131.000,E,1.0,84.4,300626,,,A"
                log += NMEAWriter.sentence(body: body) + "\n"
            }
            try log.write(toFile: dir.file("g.log"), atomically: true, encoding: .utf8)
            do {
                let (recording, _) = try GpsdLogImporter.load(path: dir.file("g.log"))
                #expect(zip(recording.records, recording.records.dropFirst()).allSatisfy { $0.time <= $1.time }, "round \(round)")
            } catch {
                #expect(error.description.utf8.count < 1000)
            }
        }
    }

    /// The crash recording's first records, re-framed one by one with fresh CRCs after
    /// `mutate` changed some of their fields.
    private func mutatedRecording(_ records: [SensorRecord], _ rng: inout SplitMix64) throws -> [UInt8] {
        var out = try RecordingEncoder.fileStart(RecordingHeader(source: "fuzz"))
        for var record in records {
            if rng.next() % 50 == 0 { record = mutate(record, &rng) }
            switch record {
            case .nmea(let t, let s): try RecordingEncoder.appendNMEA(s, at: t, to: &out)
            case .marker(let t, let m): RecordingEncoder.appendMarker(m, at: t, to: &out)
            case .label(let t, let k): RecordingEncoder.appendLabel(k, at: t, to: &out)
            case .imu(let s):
                var payload = CraftedInputTests.le(s.time.nanoseconds) + [1, 0, s.gyro == nil ? 0 : 1, 0, 0, 0, 0]
                for v in [s.accel.x, s.accel.y, s.accel.z] + (s.gyro.map { [$0.x, $0.y, $0.z] } ?? []) {
                    payload += (0..<4).map { UInt8(truncatingIfNeeded: v.bitPattern >> (8 * $0)) }
                }
                RecordingEncoder.appendRaw(kind: 2, payload: payload, to: &out)
            }
        }
        return out
    }

    private func mutate(_ record: SensorRecord, _ rng: inout SplitMix64) -> SensorRecord {
        let time = SampleTime(nanoseconds: Self.extremeTimes[Int(rng.next() % UInt64(Self.extremeTimes.count))])
        let floats: [Float] = [.nan, .infinity, -.infinity, .greatestFiniteMagnitude, 1e30, 0]
        switch (record, rng.next() % 3) {
        case (.imu(let s), 1):
            let f = floats[Int(rng.next() % UInt64(floats.count))]
            return .imu(IMUSample(time: s.time, accel: Vector3(x: f, y: s.accel.y, z: f), gyro: s.gyro))
        case (.nmea(let t, let s), 2):
            // The time of day at midnight's edges, the checksum made again.
            let fields = s.dropFirst().prefix { $0 != "*" }.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard fields.count > 2 else { return record }
            var edited = fields
            edited[1] = rng.next() % 2 == 0 ? "230000.00" : "000000.00"
            return .nmea(t, NMEAWriter.sentence(body: edited.joined(separator: ",")))
        case (.imu(let s), _): return .imu(IMUSample(time: time, accel: s.accel, gyro: s.gyro))
        case (.nmea(_, let s), _): return .nmea(time, s)
        case (.marker(_, let m), _): return .marker(time, m)
        case (.label(_, let k), _): return .label(time, k)
        }
    }

    @Test("The crash recording with fields set to extremes (valid CRCs): read, chained and run --replay without a trap")
    func recordingFields() throws {
        let (_, all, _) = try RecordingReader.readAll(path: Paths.root + "/Recordings/simulated-crash-GX010056.bpr")
        let records = Array(all.prefix(6000))
        var rng = SplitMix64(state: 0x5250_2016)
        let dir = try TempDir()
        defer { dir.cleanup() }
        for round in 0..<60 {
            let bytes = try mutatedRecording(records, &rng)
            var decoder = RecordingDecoder()
            bytes.withUnsafeBytes { decoder.feed($0) }
            decoder.finish()
            var decoded: [SensorRecord] = []
            while let event = decoder.next() { if case .record(let r) = event { decoded.append(r) } }
            #expect(decoded.count == records.count, "every mutated record is still a valid record")
            var configuration = PipelineConfiguration()
            configuration.crashDetectionEnabled = true
            var pipeline = Pipeline(configuration: configuration)
            _ = pipeline.process(decoded) + pipeline.finish()
            // Through the tools, for a few of them: inspect and the daemon's replay (store writer included).
            guard round % 15 == 0 else { continue }
            let path = dir.file("m\(round).bpr")
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            for arguments in [
                ["inspect", path], ["run", "--store", dir.file("m\(round).db"), "--status-socket", dir.file("s.sock"), "--replay", path],
            ] {
                let run = try runProcess(try CraftedInputTests.bikepathd(), arguments)
                #expect(run.status == 0, "\(arguments[0]) round \(round) exited \(run.status): \(run.err.suffix(1500))")
            }
        }
    }
}
