import BikePathFixtures
import BikePathTestSupport
import Testing
@testable import BikePathCore

enum RecordingFixtures {
    static let header = RecordingHeader(
        createdUTC: UTCTime(nanosecondsSince1970: 1_688_913_797_599_000_000), createdAtMonotonic: SampleTime(nanoseconds: 0),
        source: "import", sourceDetail: "test", writer: "tests",
        sensors: [
            .init(
                id: "accel", kind: "accelerometer", name: "bmi160", rateHz: 200, unit: "m/s^2", scale: 0.000598,
                sensorToBike: [1, 0, 0, 0, 1, 0, 0, 0, 1], note: "x forward"),
            .init(id: "gnss", kind: "gnss", name: "gpsd", rateHz: 10, unit: "nmea0183"),
        ],
        extra: [(key: "future-key", value: "kept")])

    /// A mixed stream: markers, NMEA, IMU with and without gyro, in time order.
    static func records(seed: UInt64 = 1, imuCount: Int = 1000) -> [SensorRecord] {
        var rng = SplitMix64(state: seed)
        var out: [SensorRecord] = [.marker(SampleTime(nanoseconds: 1_000), .tripStart)]
        var t: Int64 = 5_000_000
        for i in 0..<imuCount {
            t += 5_000_000 + Int64(rng.next() % 1000)
            func r() -> Float { Float(Int(rng.next() % 20_000) - 10_000) / 1000 }
            let gyro: Vector3? = i < imuCount / 2 ? Vector3(x: r(), y: r(), z: r()) : nil
            out.append(.imu(IMUSample(time: SampleTime(nanoseconds: t), accel: Vector3(x: r(), y: r(), z: r() + 9.81), gyro: gyro)))
            if i % 20 == 0 {
                out.append(.nmea(SampleTime(nanoseconds: t + 1), "$GPGGA,\(i),x*00"))
            }
        }
        out.append(.marker(SampleTime(nanoseconds: t + 10), .tripStop))
        return out
    }

    static func file(_ records: [SensorRecord]) throws -> [UInt8] {
        var bytes = try RecordingEncoder.fileStart(header)
        try RecordingEncoder.append(records, to: &bytes)
        return bytes
    }
}

/// Decodes `bytes` fed in chunks of the given sizes (cycled), returning every event.
func decodeEvents(_ bytes: [UInt8], chunkSizes: [Int] = [bytes_all]) -> [RecordingEvent] {
    var d = RecordingDecoder()
    var events: [RecordingEvent] = []
    var i = 0, k = 0
    while i < bytes.count {
        let n = chunkSizes[k % chunkSizes.count] == bytes_all ? bytes.count : max(1, chunkSizes[k % chunkSizes.count])
        k += 1
        d.feed(Array(bytes[i..<min(bytes.count, i + n)]))
        i += n
        while let e = d.next() { events.append(e) }
    }
    d.finish()
    while let e = d.next() { events.append(e) }
    return events
}

let bytes_all = Int.max

extension [RecordingEvent] {
    var records: [SensorRecord] { compactMap { if case .record(let r) = $0 { r } else { nil } } }
    var problems: [RecordingProblem] { compactMap { if case .problem(let p) = $0 { p } else { nil } } }
}

@Suite struct RecordingCodecTests {
    @Test func roundTripKeepsHeaderAndEveryRecord() throws {
        let records = RecordingFixtures.records()
        let events = decodeEvents(try RecordingFixtures.file(records))
        guard case .header(let h) = events.first else { Issue.record("no header first"); return }
        #expect(h == RecordingFixtures.header)
        #expect(h.extra.first?.value == "kept")
        #expect(events.records == records)
        #expect(events.problems.isEmpty)
    }

    @Test func randomChunkSizesGiveIdenticalEvents() throws {
        let bytes = try RecordingFixtures.file(RecordingFixtures.records(seed: 7))
        let whole = decodeEvents(bytes)
        var rng = SplitMix64(state: 42)
        for _ in 0..<20 {
            let sizes = (0..<50).map { _ in 1 + Int(rng.next() % 700) }
            #expect(decodeEvents(bytes, chunkSizes: sizes) == whole)
        }
        #expect(decodeEvents(bytes, chunkSizes: [1]) == whole)
    }

    @Test func truncationAtEveryOffsetOfTheLastRecordKeepsAllCompleteRecords() throws {
        let records = RecordingFixtures.records(imuCount: 100)
        let bytes = try RecordingFixtures.file(records)
        // The last record is the tripStop marker: 9 framing + 9 payload bytes.
        let lastStart = bytes.count - (RecordingFormat.recordOverhead + 9)
        for cut in lastStart..<bytes.count {
            let events = decodeEvents(Array(bytes[..<cut]), chunkSizes: [333])
            #expect(events.records == Array(records.dropLast()), "cut at \(cut)")
            if cut == lastStart {
                #expect(events.problems.isEmpty)
            } else {
                #expect(events.problems == [.truncated(offset: lastStart, length: cut - lastStart)])
            }
        }
    }

    @Test func truncationInsideAnIMUBlockKeepsEarlierBlocks() throws {
        let records = RecordingFixtures.records(imuCount: 600)
        let bytes = try RecordingFixtures.file(records)
        let events = decodeEvents(Array(bytes[..<(bytes.count - 100)]))
        let got = events.records
        #expect(got.count > 0 && got.count < records.count)
        #expect(Array(records.prefix(got.count)) == got)
        guard case .truncated = events.problems.last else { Issue.record("no truncation reported"); return }
    }

    @Test func corruptedByteIsReportedAndLaterRecordsRecovered() throws {
        let records = RecordingFixtures.records(imuCount: 100)
        let clean = try RecordingFixtures.file(records)
        let headerLength = try RecordingEncoder.fileStart(RecordingFixtures.header).count
        var rng = SplitMix64(state: 3)
        for _ in 0..<200 {
            var bytes = clean
            let at = headerLength + Int(rng.next() % UInt64(bytes.count - headerLength))
            bytes[at] ^= UInt8(1 + rng.next() % 255)
            let events = decodeEvents(bytes, chunkSizes: [97])
            let problems = events.problems
            #expect(problems.count == 1, "flip at \(at): \(problems)")
            guard case .corrupt(let offset, let length)? = problems.first else {
                Issue.record("flip at \(at) not reported as corrupt: \(problems)"); continue
            }
            #expect(offset <= at && at < offset + length)
            // Nothing invented: every decoded record is one of the originals, in order,
            // and the records after the damaged one are all back.
            let got = events.records
            #expect(got.count < records.count)
            #expect(got.last == records.last)
            var j = 0
            for r in got {
                while j < records.count && records[j] != r { j += 1 }
                #expect(j < records.count, "record not in the original: \(r)")
            }
        }
    }

    @Test func corruptHeaderIsFatal() throws {
        var bytes = try RecordingFixtures.file(RecordingFixtures.records(imuCount: 5))
        bytes[RecordingFormat.preambleLength + 3] ^= 0x20
        #expect(decodeEvents(bytes).problems == [.badHeader("header checksum mismatch")])
    }

    @Test func unknownVersionIsAClearFatalError() throws {
        var bytes = try RecordingFixtures.file(RecordingFixtures.records(imuCount: 5))
        bytes[8] = 2
        let events = decodeEvents(bytes)
        #expect(events == [.problem(.unsupportedVersion(2))])
        #expect(RecordingProblem.unsupportedVersion(2).description.contains("version 2 is not supported"))
    }

    @Test func notARecording() {
        #expect(decodeEvents(Array("$GPGGA,1*00\n".utf8)) == [.problem(.notARecording)])
        #expect(decodeEvents([]) == [.problem(.notARecording)])
        #expect(decodeEvents(Array(RecordingFormat.magic.prefix(5))).problems == [.truncated(offset: 0, length: 5)])
    }

    @Test func unknownRecordKindIsSkippedAndCounted() throws {
        var bytes = try RecordingEncoder.fileStart(RecordingFixtures.header)
        RecordingEncoder.appendMarker(.tripStart, at: SampleTime(nanoseconds: 1), to: &bytes)
        RecordingEncoder.appendRaw(kind: 200, payload: Array(repeating: 7, count: 300), to: &bytes)
        RecordingEncoder.appendRaw(kind: 9, payload: [], to: &bytes)
        RecordingEncoder.appendMarker(.tripStop, at: SampleTime(nanoseconds: 2), to: &bytes)
        var d = RecordingDecoder()
        d.feed(bytes)
        d.finish()
        var events: [RecordingEvent] = []
        while let e = d.next() { events.append(e) }
        #expect(events.records == [.marker(SampleTime(nanoseconds: 1), .tripStart), .marker(SampleTime(nanoseconds: 2), .tripStop)])
        #expect(events.problems.isEmpty)
        #expect(d.statistics.unknownRecordsSkipped == 2)
    }

    @Test func malformedMarkerWithValidCRCIsSkipped() throws {
        var bytes = try RecordingEncoder.fileStart(RecordingFixtures.header)
        RecordingEncoder.appendRaw(kind: RecordingTag.marker.rawValue, payload: [0, 0, 0, 0, 0, 0, 0, 0, 9], to: &bytes)
        RecordingEncoder.appendMarker(.tripStop, at: SampleTime(nanoseconds: 2), to: &bytes)
        let events = decodeEvents(bytes)
        #expect(events.records == [.marker(SampleTime(nanoseconds: 2), .tripStop)])
        guard case .malformed? = events.problems.first else { Issue.record("not reported"); return }
    }

    @Test func riderLabelsRoundTripAndAnUnknownKindCodeIsSkipped() throws {
        var bytes = try RecordingEncoder.fileStart(RecordingFixtures.header)
        let labels: [SensorRecord] = ObstacleKind.allCases.enumerated().map {
            .label(SampleTime(nanoseconds: Int64($0.offset + 1)), $0.element)
        }
        try RecordingEncoder.append(labels, to: &bytes)
        RecordingEncoder.appendRaw(kind: RecordingTag.label.rawValue, payload: [0, 0, 0, 0, 0, 0, 0, 0, 9], to: &bytes)
        var d = RecordingDecoder()
        d.feed(bytes)
        d.finish()
        var events: [RecordingEvent] = []
        while let e = d.next() { events.append(e) }
        #expect(events.records == labels)
        #expect(d.statistics.labels == labels.count)
        #expect(events.problems == [.malformed(offset: bytes.count - 18, reason: "unknown label code 9")])
    }

    @Test func zeroFilledTailIsReportedAsTruncation() throws {
        let records = RecordingFixtures.records(imuCount: 10)
        let bytes = try RecordingFixtures.file(records) + Array(repeating: 0, count: 4096)
        let events = decodeEvents(bytes, chunkSizes: [1000])
        #expect(events.records == records)
        #expect(events.problems == [.zeroFilledTail(offset: bytes.count - 4096, length: 4096)])
    }

    @Test func imuBlocksSplitOnTimeGoingBackwardsAndLongGaps() throws {
        let t: [Int64] = [10, 20, 5, 6_000_000_000, 6_000_000_001]
        let records = t.map { SensorRecord.imu(IMUSample(time: SampleTime(nanoseconds: $0), accel: .zero)) }
        let events = decodeEvents(try RecordingFixtures.file(records))
        #expect(events.records == records)
    }

    @Test func encoderRejectsWhatIsNotASentence() {
        var out: [UInt8] = []
        #expect(throws: RecordingEncodeError.notASentence) {
            try RecordingEncoder.appendNMEA("GPGGA,1*00", at: SampleTime(nanoseconds: 0), to: &out)
        }
        #expect(throws: RecordingEncodeError.sentenceLength(0)) {
            try RecordingEncoder.appendNMEA("", at: SampleTime(nanoseconds: 0), to: &out)
        }
        #expect(out.isEmpty)
    }

    @Test func crcMatchesZlib() {
        // zlib.crc32(b"123456789") == 0xCBF43926, the standard check value.
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        let long = Array("The quick brown fox jumps over the lazy dog".utf8)
        #expect(CRC32.checksum(long) == 0x414F_A339)
    }

    @Test func headerRejectsBadNumbersWithLine() {
        #expect(throws: RecordingHeaderError(line: 2, message: "sensor.0.rate-hz: 'fast' is not a number")) {
            try RecordingHeader(text: "source=live\nsensor.0.rate-hz=fast\n")
        }
    }
}
