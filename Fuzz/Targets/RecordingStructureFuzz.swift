// fuzz-runs-divisor: 10
// Structure-aware libFuzzer target (compiled with the core by Fuzz/run.sh): the input
// does not become the file's bytes; it edits the FIELDS of a valid recording — the
// header's created-utc year, record times (often the extremes of Int64), IMU sample
// steps, counts and floats, NMEA time/date/speed fields (with a fresh checksum),
// marker codes — and every record is framed with a valid CRC, so the decoder accepts
// it and the values reach what the tools do with them: the chain (`replay`, `run
// --replay`) and the time arithmetic of `inspect`, `ReplaySource` and `StoreWriter`.
// Byte-level fuzzing rarely gets past the CRC; these traps were found only this way.

@testable import BikePathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    // Half the inputs: a year the header can hold (records follow); half: any of 0000–9999.
    let pick = input.u16()
    var file = header(year: pick & 1 == 0 ? 1678 + Int(pick >> 1) % 585 : Int(pick >> 1) % 10_000)
    var time: Int64 = 1_000_000_000
    var sentences = 0
    while !input.isEmpty {
        let op = input.u8()
        time = nextTime(time, &input, op)
        switch op % 4 {
        case 0, 1:
            // An IMU block: up to 40 samples, steps and values from the input.
            let count = Int(input.u8() % 40) + 1
            let gyro = op & 0x10 != 0
            var payload: [UInt8] = le(UInt64(bitPattern: time))
            payload += le(UInt16(count))
            payload.append(gyro ? 1 : 0)
            for _ in 0..<count {
                payload += le(input.u8() & 0x80 != 0 ? input.u32() : 5_000_000)
                for _ in 0..<(gyro ? 6 : 3) { payload += le(float(&input).bitPattern) }
            }
            RecordingEncoder.appendRaw(kind: 2, payload: payload, to: &file)
        case 2:
            sentences += 1
            let sentence = rmc(&input, sequence: sentences)
            RecordingEncoder.appendRaw(kind: 1, payload: le(UInt64(bitPattern: time)) + Array(sentence.utf8), to: &file)
        default:
            RecordingEncoder.appendRaw(kind: 3, payload: le(UInt64(bitPattern: time)) + [input.u8() % 4], to: &file)
        }
    }
    check(file)
    return 0
}

/// Decodes the file and does with its records what the tools do.
private func check(_ file: [UInt8]) {
    var decoder = RecordingDecoder()
    file.withUnsafeBytes { decoder.feed($0) }
    decoder.finish()
    var records: [SensorRecord] = []
    while let event = decoder.next() {
        if case .record(let r) = event { records.append(r) }
    }
    guard let first = records.first, let last = records.last else { return }
    // inspect: the span; ReplaySource: the span of a pass; StoreWriter: gaps between points.
    _ = last.time - first.time
    _ = last.time + (first.time - last.time)
    for (a, b) in zip(records, records.dropFirst()) { _ = b.time - a.time }
    var configuration = PipelineConfiguration()
    configuration.crashDetectionEnabled = true
    var pipeline = Pipeline(configuration: configuration)
    var outputs = pipeline.process(records)
    outputs += pipeline.finish()
    for case .trackPoint(let p) in outputs { _ = p.time - first.time }
}

/// Mostly a few ms later; sometimes an extreme of Int64, or any Int64 at all.
private func nextTime(_ time: Int64, _ input: inout FuzzInput, _ op: UInt8) -> Int64 {
    switch op >> 5 {
    case 0, 1, 2, 3: return time &+ Int64(input.u8()) * 1_000_000
    case 4: return extremeTimes[Int(input.u8()) % extremeTimes.count]
    case 5: return Int64(bitPattern: input.u64())
    case 6: return time &- Int64(input.u8()) * 1_000_000_000
    default: return time &+ Int64(input.u16()) * 1_000_000_000
    }
}

private let extremeTimes: [Int64] = [.min, .max, .min + 1, .max - 1, 0, -1, 1 << 53, -(1 << 53), 1 << 62, -(1 << 62)]

/// A float: ordinary, or NaN, ±infinity, the largest finite, a subnormal.
private func float(_ input: inout FuzzInput) -> Float {
    let pick = input.u8()
    switch pick % 8 {
    case 0: return extremeFloats[Int(pick >> 5)]
    case 1: return Float(bitPattern: input.u32())
    default: return Float(Int8(bitPattern: input.u8())) / 4
    }
}

private let extremeFloats: [Float] = [
    .nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
    .leastNonzeroMagnitude, 0, -0.0,
]

/// An RMC sentence with its time, date and speed from the input (23:59:59 and 00:00:00
/// often, the day's edges that move a day offset) and a correct checksum.
private func rmc(_ input: inout FuzzInput, sequence: Int) -> String {
    let edge = input.u8()
    var time = sequence % 2 == 0 ? "230000" : "000000"
    if edge & 1 != 0 {
        let h = two(Int(input.u8() % 24)), m = two(Int(input.u8() % 60)), s = two(Int(input.u8() % 61))
        time = h + m + s
    }
    let d = two(Int(input.u8() % 32)), mo = two(Int(input.u8() % 13)), y = two(Int(input.u8() % 100))
    let date = d + mo + y
    let speeds = ["0.0", "12.5", "1e300", "-5", "99999999999", "nan"]
    let speed = speeds[Int(edge >> 1) % speeds.count]
    return NMEAWriter.sentence(body: "GPRMC,\(time).00,A,4807.038,N,01131.000,E,\(speed),084.4,\(date),,,A")
}

private func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

/// Magic, version and a header whose created-utc year is any of 0000–9999.
private func header(year: Int) -> [UInt8] {
    let y = String(year)
    let text =
        "clock=monotonic-ns\ncreated-utc=\(String(repeating: "0", count: 4 - y.count) + y)-06-30T23:59:59Z\n"
        + "created-at-monotonic-ns=0\nsource=fuzz\n"
    let bytes = Array(text.utf8)
    var out: [UInt8] = RecordingFormat.magic
    out += le(RecordingFormat.version)
    out += le(UInt32(bytes.count))
    out += bytes
    out += le(bytes.withUnsafeBytes { CRC32.checksum($0) })
    return out
}

private func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] {
    (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) }
}

/// Reads the fuzzer's bytes as numbers; zeros once they run out.
private struct FuzzInput {
    let bytes: UnsafeRawBufferPointer
    var offset = 0
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }
    var isEmpty: Bool { offset >= bytes.count }
    mutating func u8() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }
    mutating func u16() -> UInt16 { UInt16(u8()) | UInt16(u8()) << 8 }
    mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }
    mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }
}
