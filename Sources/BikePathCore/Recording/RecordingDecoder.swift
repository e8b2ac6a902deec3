/// Incremental recording decoder: feed byte chunks of any size, pull events. Memory is
/// bounded by one chunk plus the largest record (64 KiB): nothing is kept once decoded.
///
/// Damage policy (docs/recording-format.md):
/// - A record whose CRC fails is reported once as `.corrupt` and the decoder *resyncs*:
///   it slides forward byte by byte until a known-kind record with a plausible length and
///   a matching CRC starts, so one bad sector on an SD card costs that region, not the
///   rest of the ride. A false resync needs a 32-bit CRC collision on top of the kind and
///   length checks.
/// - Resyncing costs bounded work per byte: each skipped byte earns `resyncCRCBytesPerByte`
///   (16) bytes of CRC, on top of a start of two largest records, and a candidate whose
///   CRC would overdraw that is skipped unchecked. A file of fake headers every 16 bytes
///   thus costs ~16 CRC bytes per byte (it cost 64 KiB per 16 bytes: 40 s for 16 MB),
///   while real records after ordinary damage are always checked.
/// - Input that ends inside a record (power loss) yields every complete record, then
///   `.truncated`. A zero-filled tail (what some filesystems leave after a crash) is
///   reported as `.zeroFilledTail`, not as corruption.
/// - Not a recording, an unknown version or a bad header are fatal: nothing after them
///   can be trusted.
public struct RecordingDecoder: Sendable {
    public private(set) var header: RecordingHeader?
    public private(set) var version: UInt16?
    public private(set) var statistics = RecordingDecodeStatistics()
    /// True once a fatal problem was reported or the end was reached.
    public private(set) var isDone = false

    private var buffer: [UInt8] = []
    private var position = 0
    /// File offset of buffer[0].
    private var bufferOffset = 0
    private var ended = false
    private var ready: [RecordingEvent] = []
    private var readyIndex = 0
    /// File offset where the current corrupt region began, while resyncing.
    private var resyncStart: Int?
    private var resyncAllZero = true
    /// Bytes of CRC the current resync may still spend (see the type comment).
    private var resyncCRCBudget = RecordingDecoder.resyncCRCStartBudget
    private var headerDone = false
    static let resyncCRCBytesPerByte = 16
    static let resyncCRCStartBudget = 2 * (RecordingFormat.maxPayloadLength + 9)

    /// Creates a decoder waiting for the file's first bytes.
    public init() {}

    /// Appends the next chunk of the file; ignored once the decoder is done or `finish()` was
    /// called.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        guard !isDone, !ended else { return }
        if position > 0, position >= buffer.count / 2 {
            buffer.removeFirst(position)
            bufferOffset += position
            position = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Appends the next chunk of the file; ignored once the decoder is done or `finish()` was
    /// called.
    public mutating func feed(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { feed($0) }
    }

    /// No more input: the remaining events, then nil.
    public mutating func finish() { ended = true }

    /// The next event, or nil when more input is needed (or, after `finish()`, at the end).
    public mutating func next() -> RecordingEvent? {
        while true {
            if readyIndex < ready.count {
                let e = ready[readyIndex]
                readyIndex += 1
                return e
            }
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            if isDone || !step() { return nil }
        }
    }

    private var available: Int { buffer.count - position }
    private var offset: Int { bufferOffset + position }

    private mutating func fail(_ p: RecordingProblem) {
        ready.append(.problem(p))
        isDone = true
    }

    /// Decodes one unit into `ready`; false when it needs more input.
    private mutating func step() -> Bool {
        // A Bool, not `header == nil`: testing the optional header copied it on every step.
        if !headerDone { return stepPreamble() }
        if available < 5 {
            if ended { endOfInput() }
            return ended
        }
        let kindByte = buffer[position]
        let length = Int(loadU32(at: position + 1))
        let kind = RecordingTag(rawValue: kindByte)
        if !plausible(kind: kind, kindByte: kindByte, length: length) {
            slide()
            return true
        }
        let total = 5 + length + 4
        if available < total {
            guard ended else { return false }
            if resyncStart != nil { slide() } else { endOfInput() }
            return true
        }
        let start = position
        if resyncStart != nil {
            guard resyncCRCBudget >= 5 + length else {
                slide()
                return true
            }
            resyncCRCBudget -= 5 + length
        }
        let crc = buffer.withUnsafeBytes { CRC32.checksum(UnsafeRawBufferPointer(rebasing: $0[start..<(start + 5 + length)])) }
        guard crc == loadU32(at: start + 5 + length) else {
            slide()
            return true
        }
        closeCorruptRegion()
        if let kind {
            decodePayload(kind, from: start + 5, length: length)
        } else {
            statistics.unknownRecordsSkipped += 1
        }
        position += total
        return true
    }

    private func loadU32(at i: Int) -> UInt32 {
        buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: i, as: UInt32.self).littleEndian }
    }

    /// Cheap structural checks before the CRC, so that resyncing over garbage rarely
    /// needs a CRC and never waits for a long bogus record.
    private func plausible(kind: RecordingTag?, kindByte: UInt8, length: Int) -> Bool {
        guard length <= RecordingFormat.maxPayloadLength else { return false }
        guard let kind else { return resyncStart == nil && kindByte != 0 }
        switch kind {
        case .nmea:
            guard length >= 9 && length <= 8 + RecordingFormat.maxNMEALength else { return false }
            guard available >= 5 + 9 else { return true }
            let first = buffer[position + 5 + 8]
            return first == UInt8(ascii: "$") || first == UInt8(ascii: "!")
        case .marker, .label: return length == 9
        case .imuBlock:
            let fixed = RecordingFormat.imuBlockFixedLength
            guard length > fixed else { return false }
            guard available >= 5 + fixed else { return true }  // decide once the count is here
            let count = Int(buffer[position + 5 + 8]) | Int(buffer[position + 5 + 9]) << 8
            let flags = buffer[position + 5 + 10]
            guard count > 0, flags & ~RecordingFormat.imuFlagGyro == 0 else { return false }
            let per = flags == 0 ? RecordingFormat.imuSampleLength : RecordingFormat.imuSampleLengthWithGyro
            return length == fixed + count * per
        }
    }

    private mutating func slide() {
        if resyncStart == nil {
            resyncStart = offset
            resyncAllZero = true
        }
        if buffer[position] != 0 { resyncAllZero = false }
        position += 1
        resyncCRCBudget = min(resyncCRCBudget + Self.resyncCRCBytesPerByte, Self.resyncCRCStartBudget)
    }

    private mutating func closeCorruptRegion() {
        guard let start = resyncStart else { return }
        statistics.corruptBytes += offset - start
        statistics.corruptRegions += 1
        ready.append(.problem(.corrupt(offset: start, length: offset - start)))
        resyncStart = nil
        resyncCRCBudget = Self.resyncCRCStartBudget
    }

    private mutating func endOfInput() {
        if let start = resyncStart {
            // Everything left was skipped while resyncing, including what is still buffered.
            for i in position..<buffer.count where buffer[i] != 0 { resyncAllZero = false }
            let end = bufferOffset + buffer.count
            if resyncAllZero {
                statistics.truncatedBytes += end - start
                ready.append(.problem(.zeroFilledTail(offset: start, length: end - start)))
            } else {
                statistics.corruptBytes += end - start
                statistics.corruptRegions += 1
                ready.append(.problem(.corrupt(offset: start, length: end - start)))
            }
            resyncStart = nil
        } else if available > 0 {
            statistics.truncatedBytes += available
            ready.append(.problem(.truncated(offset: offset, length: available)))
        }
        position = buffer.count
        isDone = true
    }

    private mutating func decodePayload(_ kind: RecordingTag, from start: Int, length: Int) {
        let recordOffset = offset
        var problem: RecordingProblem?
        // Decode into `ready` through a local, so the buffer read does not overlap a write to self.
        var events = ready
        ready = []
        var stats = statistics
        buffer.withUnsafeBytes { raw in
            let p = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
            let time = SampleTime(nanoseconds: Int64(bitPattern: p.loadUnaligned(as: UInt64.self).littleEndian))
            switch kind {
            case .nmea:
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: p[8...]), as: UTF8.self)
                stats.nmeaSentences += 1
                events.append(.record(.nmea(time, text)))
            case .marker, .label:
                // One code byte after the time: the rider's start/stop or obstacle mark.
                let code = p[8]
                let record: SensorRecord? =
                    kind == .marker
                    ? Marker(recordingCode: code).map { .marker(time, $0) }
                    : ObstacleKind(recordingCode: code).map { .label(time, $0) }
                guard let record else {
                    stats.malformedRecords += 1
                    problem = .malformed(offset: recordOffset, reason: "unknown \(kind == .marker ? "marker" : "label") code \(code)")
                    return
                }
                if kind == .marker { stats.markers += 1 } else { stats.labels += 1 }
                events.append(.record(record))
            case .imuBlock:
                // Length, count and flags were checked in plausible().
                let count = Int(p.loadUnaligned(fromByteOffset: 8, as: UInt16.self).littleEndian)
                let gyro = p[10] & RecordingFormat.imuFlagGyro != 0
                var t = time.nanoseconds
                var o = RecordingFormat.imuBlockFixedLength
                func f(_ at: Int) -> Float { Float(bitPattern: p.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian) }
                events.reserveCapacity(events.count + count)
                for _ in 0..<count {
                    t &+= Int64(p.loadUnaligned(fromByteOffset: o, as: UInt32.self).littleEndian)
                    let accel = Vector3(x: f(o + 4), y: f(o + 8), z: f(o + 12))
                    var g: Vector3?
                    if gyro {
                        g = Vector3(x: f(o + 16), y: f(o + 20), z: f(o + 24))
                        o += RecordingFormat.imuSampleLengthWithGyro
                    } else {
                        o += RecordingFormat.imuSampleLength
                    }
                    events.append(.record(.imu(IMUSample(time: SampleTime(nanoseconds: t), accel: accel, gyro: g))))
                }
                stats.imuBlocks += 1
                stats.imuSamples += count
            }
        }
        if let problem { events.append(.problem(problem)) }
        ready = events
        statistics = stats
    }

    private mutating func stepPreamble() -> Bool {
        let magic = RecordingFormat.magic
        let have = min(available, magic.count)
        for i in 0..<have where buffer[position + i] != magic[i] {
            fail(.notARecording)
            return true
        }
        guard available >= RecordingFormat.preambleLength else {
            if ended { fail(available == 0 ? .notARecording : .truncated(offset: offset, length: available)) }
            return ended
        }
        let (v, length) = buffer.withUnsafeBytes { raw in
            (
                raw.loadUnaligned(fromByteOffset: position + 8, as: UInt16.self).littleEndian,
                Int(raw.loadUnaligned(fromByteOffset: position + 10, as: UInt32.self).littleEndian)
            )
        }
        guard v == RecordingFormat.version else {
            fail(.unsupportedVersion(v))
            return true
        }
        version = v
        guard length <= RecordingFormat.maxHeaderLength else {
            fail(.badHeader("header length \(length) exceeds \(RecordingFormat.maxHeaderLength)"))
            return true
        }
        let total = RecordingFormat.preambleLength + length + 4
        guard available >= total else {
            if ended { fail(.truncated(offset: offset, length: available)) }
            return ended
        }
        let start = position + RecordingFormat.preambleLength
        let (ok, text) = buffer.withUnsafeBytes { raw in
            let body = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
            let stored = raw.loadUnaligned(fromByteOffset: start + length, as: UInt32.self).littleEndian
            return (CRC32.checksum(body) == stored, String(decoding: body, as: UTF8.self))
        }
        guard ok else {
            fail(.badHeader("header checksum mismatch"))
            return true
        }
        do {
            let h = try RecordingHeader(text: text)
            header = h
            headerDone = true
            position += total
            ready.append(.header(h))
        } catch {
            fail(.badHeader(error.description))
        }
        return true
    }
}

/// What the decoder yields: the header first, then records and the problems met on the way.
public enum RecordingEvent: Sendable, Equatable {
    case header(RecordingHeader)
    case record(SensorRecord)
    case problem(RecordingProblem)
}

/// Something wrong with a recording; `isFatal` ones end decoding.
public enum RecordingProblem: Sendable, Equatable, CustomStringConvertible {
    /// The bytes do not start with the recording magic (or the input is empty).
    case notARecording
    case unsupportedVersion(UInt16)
    case badHeader(String)
    /// The input ends inside a record (or inside the header): `length` bytes at `offset` ignored.
    case truncated(offset: Int, length: Int)
    /// Zero bytes up to the end of input, where records were expected.
    case zeroFilledTail(offset: Int, length: Int)
    /// Bytes that do not form valid records (CRC or framing), skipped while resyncing.
    case corrupt(offset: Int, length: Int)
    /// A record with a valid CRC whose contents this version cannot accept; skipped.
    case malformed(offset: Int, reason: String)

    /// Fatal problems end decoding; the others are reported and decoding goes on.
    public var isFatal: Bool {
        switch self {
        case .notARecording, .unsupportedVersion, .badHeader: true
        case .truncated, .zeroFilledTail, .corrupt, .malformed: false
        }
    }

    public var description: String {
        switch self {
        case .notARecording: "not a BikePath recording (magic bytes missing)"
        case .unsupportedVersion(let v):
            "recording format version \(v) is not supported (this build reads version \(RecordingFormat.version))"
        case .badHeader(let why): "bad recording header: \(why)"
        case .truncated(let o, let n): "truncated: the input ends inside a record at byte \(o) (\(n) bytes ignored)"
        case .zeroFilledTail(let o, let n): "truncated: \(n) zero bytes from byte \(o) to the end (typical after power loss)"
        case .corrupt(let o, let n): "corrupt: \(n) bytes at byte \(o) failed their checksum and were skipped"
        case .malformed(let o, let why): "malformed record at byte \(o) skipped: \(why)"
        }
    }
}

/// Counts of what a decoder read and skipped, by kind.
public struct RecordingDecodeStatistics: Sendable, Equatable {
    public var nmeaSentences = 0
    public var imuBlocks = 0
    public var imuSamples = 0
    public var markers = 0
    /// The rider's obstacle marks (record kind 4).
    public var labels = 0
    /// Records of kinds this version does not know (valid CRC), skipped.
    public var unknownRecordsSkipped = 0
    public var malformedRecords = 0
    public var corruptRegions = 0
    public var corruptBytes = 0
    public var truncatedBytes = 0
    /// Creates all-zero counts.
    public init() {}
}
