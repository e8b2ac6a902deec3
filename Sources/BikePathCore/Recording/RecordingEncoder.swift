/// Appends recording bytes to a buffer. Pure: the file writer in BikePathSensors owns I/O.
public enum RecordingEncoder {
    /// Magic, version, header length, header text, header CRC.
    public static func fileStart(_ header: RecordingHeader) throws(RecordingEncodeError) -> [UInt8] {
        let text = Array(header.text.utf8)
        guard text.count <= RecordingFormat.maxHeaderLength else { throw .headerTooLong(text.count) }
        var out = RecordingFormat.magic
        out.appendLE(RecordingFormat.version)
        out.appendLE(UInt32(text.count))
        out.append(contentsOf: text)
        out.appendLE(CRC32.checksum(text))
        return out
    }

    /// One NMEA sentence, without its line ending.
    public static func appendNMEA(_ sentence: String, at time: SampleTime, to out: inout [UInt8]) throws(RecordingEncodeError) {
        let count = sentence.utf8.count
        guard count >= 1, count <= RecordingFormat.maxNMEALength else { throw .sentenceLength(count) }
        guard let first = sentence.utf8.first, first == UInt8(ascii: "$") || first == UInt8(ascii: "!") else {
            throw .notASentence
        }
        let start = beginRecord(.nmea, payloadLength: 8 + count, in: &out)
        out.appendLE(UInt64(bitPattern: time.nanoseconds))
        out.append(contentsOf: sentence.utf8)
        endRecord(from: start, in: &out)
    }

    /// Appends a start/stop marker record at `time`.
    public static func appendMarker(_ marker: Marker, at time: SampleTime, to out: inout [UInt8]) {
        let start = beginRecord(.marker, payloadLength: 9, in: &out)
        out.appendLE(UInt64(bitPattern: time.nanoseconds))
        out.append(marker.recordingCode)
        endRecord(from: start, in: &out)
    }

    /// The rider's mark of an obstacle just passed.
    public static func appendLabel(_ kind: ObstacleKind, at time: SampleTime, to out: inout [UInt8]) {
        let start = beginRecord(.label, payloadLength: 9, in: &out)
        out.appendLE(UInt64(bitPattern: time.nanoseconds))
        out.append(kind.recordingCode)
        endRecord(from: start, in: &out)
    }

    /// Any run of IMU samples: split into as many blocks as needed so each block has one
    /// gyro presence, at most `maxSamplesPerBlock` samples and forward steps that fit a u32
    /// (a step backwards or over 4.29 s starts a new block, so nothing is ever rejected).
    public static func appendIMU(
        _ samples: some Collection<IMUSample>, maxSamplesPerBlock: Int = 256,
        to out: inout [UInt8]
    ) {
        let limit = max(1, min(maxSamplesPerBlock, RecordingFormat.maxIMUBlockSamples))
        var block: [IMUSample] = []
        block.reserveCapacity(min(limit, samples.count))
        for s in samples {
            if let last = block.last {
                let step = s.time.nanoseconds &- last.time.nanoseconds
                if block.count == limit || (last.gyro == nil) != (s.gyro == nil)
                    || step < 0 || step > Int64(UInt32.max) || s.time.nanoseconds < last.time.nanoseconds
                {
                    appendIMUBlock(block, to: &out)
                    block.removeAll(keepingCapacity: true)
                }
            }
            block.append(s)
        }
        if !block.isEmpty { appendIMUBlock(block, to: &out) }
    }

    /// Sensor records in order; consecutive IMU samples share blocks.
    public static func append(_ records: some Sequence<SensorRecord>, to out: inout [UInt8]) throws(RecordingEncodeError) {
        var imu: [IMUSample] = []
        for r in records {
            if case .imu(let s) = r { imu.append(s); continue }
            if !imu.isEmpty { appendIMU(imu, to: &out); imu.removeAll(keepingCapacity: true) }
            switch r {
            case .nmea(let t, let s): try appendNMEA(s, at: t, to: &out)
            case .marker(let t, let m): appendMarker(m, at: t, to: &out)
            case .label(let t, let k): appendLabel(k, at: t, to: &out)
            case .imu: break
            }
        }
        if !imu.isEmpty { appendIMU(imu, to: &out) }
    }

    /// A record of any kind byte, for tests of forward compatibility.
    public static func appendRaw(kind: UInt8, payload: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        out.append(kind)
        out.appendLE(UInt32(payload.count))
        out.append(contentsOf: payload)
        endRecord(from: start, in: &out)
    }

    // The caller guarantees the block invariants (see appendIMU).
    private static func appendIMUBlock(_ block: [IMUSample], to out: inout [UInt8]) {
        let gyro = block[0].gyro != nil
        let per = gyro ? RecordingFormat.imuSampleLengthWithGyro : RecordingFormat.imuSampleLength
        let start = beginRecord(.imuBlock, payloadLength: RecordingFormat.imuBlockFixedLength + block.count * per, in: &out)
        let t0 = block[0].time.nanoseconds
        out.appendLE(UInt64(bitPattern: t0))
        out.appendLE(UInt16(block.count))
        out.append(gyro ? RecordingFormat.imuFlagGyro : 0)
        var previous = t0
        for s in block {
            out.appendLE(UInt32(s.time.nanoseconds - previous))
            previous = s.time.nanoseconds
            out.appendLE(s.accel.x.bitPattern)
            out.appendLE(s.accel.y.bitPattern)
            out.appendLE(s.accel.z.bitPattern)
            if gyro, let g = s.gyro {
                out.appendLE(g.x.bitPattern)
                out.appendLE(g.y.bitPattern)
                out.appendLE(g.z.bitPattern)
            }
        }
        endRecord(from: start, in: &out)
    }

    private static func beginRecord(_ kind: RecordingTag, payloadLength: Int, in out: inout [UInt8]) -> Int {
        let start = out.count
        out.reserveCapacity(start + RecordingFormat.recordOverhead + payloadLength)
        out.append(kind.rawValue)
        out.appendLE(UInt32(payloadLength))
        return start
    }

    private static func endRecord(from start: Int, in out: inout [UInt8]) {
        let crc = out.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        out.appendLE(crc)
    }
}

/// Why bytes could not be encoded: a header over `RecordingFormat.maxHeaderLength`, a sentence
/// of a length the format cannot hold, or a line that is not NMEA.
public enum RecordingEncodeError: Error, Sendable, Equatable, CustomStringConvertible {
    case headerTooLong(Int)
    case sentenceLength(Int)
    /// NMEA 0183 sentences start with `$` (or `!` for encapsulated ones).
    case notASentence

    public var description: String {
        switch self {
        case .headerTooLong(let n): "recording header is \(n) bytes, the limit is \(RecordingFormat.maxHeaderLength)"
        case .sentenceLength(let n): "NMEA sentence of \(n) bytes: must be 1...\(RecordingFormat.maxNMEALength)"
        case .notASentence: "an NMEA sentence must start with '$' or '!'"
        }
    }
}

fileprivate extension Array where Element == UInt8 {
    @inline(__always) mutating func appendLE<T: FixedWidthInteger>(_ v: T) {
        Swift.withUnsafeBytes(of: v.littleEndian) { append(contentsOf: $0) }
    }
}
