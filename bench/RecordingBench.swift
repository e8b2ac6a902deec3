// Recording format benchmark: size per ride-hour and read speed, binary (.bpr) versus a
// lossless CSV text equivalent. Compiled with the core sources by bench/recording.sh.
#if canImport(Glibc)
import Glibc
#endif

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

struct Rng {
    var s: UInt64
    mutating func next() -> UInt64 {
        s &+= 0x9E37_79B9_7F4A_7C15
        var z = s
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Roughly normal, mean 0, sd 1 (sum of uniforms).
    mutating func normal() -> Float {
        var a: Float = 0
        for _ in 0..<4 { a += Float(next() % 1_000_000) / 1_000_000 }
        return (a - 2) * 1.7
    }
}

/// One minute of a synthetic ride: IMU with gyro at `rate`, RMC+GGA at 10 Hz, in time order.
func minute(_ m: Int, rate: Int, rng: inout Rng) -> [SensorRecord] {
    var out: [SensorRecord] = []
    let start = Int64(m) * 60_000_000_000
    let imuStep = 1_000_000_000 / Int64(rate)
    var nextFix = start
    var t = start
    let end = start + 60_000_000_000
    while t < end {
        while nextFix <= t {
            let secs = Double(nextFix) / 1e9
            let fix = GNSSFix(receivedAt: SampleTime(nanoseconds: nextFix),
                              time: UTCTime(nanosecondsSince1970: 1_688_913_797_000_000_000 + nextFix),
                              mode: .threeD, latitude: 51.5 + secs * 4e-5, longitude: -0.1 - secs * 2e-5,
                              altitudeMSL: 20 + Double(rng.normal()), speed: 5.5 + Double(rng.normal()) * 0.3, hdop: 0.9)
            for s in NMEAWriter.sentences(for: fix) { out.append(.nmea(SampleTime(nanoseconds: nextFix), s)) }
            nextFix += 100_000_000
        }
        out.append(.imu(IMUSample(time: SampleTime(nanoseconds: t),
                                  accel: Vector3(x: rng.normal() * 0.8, y: rng.normal() * 0.5, z: 9.81 + rng.normal() * 1.5),
                                  gyro: Vector3(x: rng.normal() * 0.05, y: rng.normal() * 0.05, z: rng.normal() * 0.1))))
        t += imuStep
    }
    return out
}

/// The text equivalent: `I,t_ns,ax,ay,az,gx,gy,gz` and `N,t_ns,sentence` lines; floats in
/// Swift's shortest round-trip form, so the text is as lossless as the binary.
func csv(_ records: [SensorRecord], into out: inout [UInt8]) {
    for r in records {
        switch r {
        case .imu(let s):
            let g = s.gyro ?? .zero
            out.append(contentsOf: "I,\(s.time.nanoseconds),\(s.accel.x),\(s.accel.y),\(s.accel.z),\(g.x),\(g.y),\(g.z)\n".utf8)
        case .nmea(let t, let s): out.append(contentsOf: "N,\(t.nanoseconds),\(s)\n".utf8)
        case .marker(let t, let m): out.append(contentsOf: "M,\(t.nanoseconds),\(m.rawValue)\n".utf8)
        case .label(let t, let k): out.append(contentsOf: "L,\(t.nanoseconds),\(k.rawValue)\n".utf8)
        }
    }
}

func writeFile(_ path: String, _ parts: [[UInt8]]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    for p in parts { _ = p.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) } }
    close(fd)
}

/// Reads a .bpr file in 256 KiB chunks through the core decoder (what RecordingReader does).
func readBinary(_ path: String) -> (records: Int, checksum: Double) {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 256 << 10)
    var d = RecordingDecoder()
    var n = 0
    var sum = 0.0
    func drain() {
        while let e = d.next() {
            if case .record(let r) = e {
                n += 1
                if case .imu(let s) = r { sum += Double(s.accel.z) }
            }
        }
    }
    while true {
        let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        chunk.withUnsafeBytes { d.feed(UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
        drain()
    }
    d.finish()
    drain()
    return (n, sum)
}

/// Reads the CSV equivalent in 256 KiB chunks, parsing numbers with strtod/strtoll into the
/// same SensorRecord values.
func readCSV(_ path: String) -> (records: Int, checksum: Double) {
    let fd = open(path, O_RDONLY)
    defer { close(fd) }
    var chunk = [UInt8](repeating: 0, count: 256 << 10)
    var carry: [UInt8] = []
    var n = 0
    var sum = 0.0
    func parse(_ line: UnsafeMutablePointer<CChar>, _ length: Int) {
        guard length > 2 else { return }
        var p = line + 2
        var end: UnsafeMutablePointer<CChar>?
        let t = strtoll(p, &end, 10)
        p = end!
        if line[0] == CChar(UInt8(ascii: "I")) {
            var v = [Float](repeating: 0, count: 6)
            for k in 0..<6 {
                v[k] = strtof(p + 1, &end)
                p = end!
            }
            let s = IMUSample(time: SampleTime(nanoseconds: t), accel: Vector3(x: v[0], y: v[1], z: v[2]),
                              gyro: Vector3(x: v[3], y: v[4], z: v[5]))
            sum += Double(s.accel.z)
        } else {
            let text = String(cString: p + 1)
            let r = SensorRecord.nmea(SampleTime(nanoseconds: t), text)
            if r.time.nanoseconds < 0 { sum += 1 }
        }
        n += 1
    }
    while true {
        let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if got <= 0 { break }
        carry.append(contentsOf: chunk[0..<got])
        var start = 0
        carry.withUnsafeMutableBufferPointer { b in
            b.withMemoryRebound(to: CChar.self) { c in
                for i in 0..<c.count where c[i] == 10 {
                    c[i] = 0
                    parse(c.baseAddress! + start, i - start)
                    start = i + 1
                }
            }
        }
        carry.removeFirst(start)
    }
    return (n, sum)
}

func mb(_ bytes: Int) -> String { "\(Double(Int(Double(bytes) / 1e6 * 10)) / 10) MB" }
func r1(_ v: Double) -> String { "\(Double(Int(v * 10)) / 10)" }

@main
struct RecordingBench {
    static func main() {
        let out = CommandLine.arguments.count > 1 ? CommandLine.arguments[1] : "bench-out"
        print("| IMU rate | binary .bpr per ride-hour | CSV text per ride-hour | ratio | read .bpr | read CSV | read speed ratio |")
        print("|---|---|---|---|---|---|---|")
        for rate in [200, 1000] {
            var rng = Rng(s: UInt64(rate))
            var binary: [[UInt8]] = [(try? RecordingEncoder.fileStart(RecordingHeader(source: "bench"))) ?? []]
            var text: [[UInt8]] = []
            var records = 0
            for m in 0..<60 {
                let recs = minute(m, rate: rate, rng: &rng)
                records += recs.count
                var b: [UInt8] = []
                try! RecordingEncoder.append(recs, to: &b)
                var c: [UInt8] = []
                csv(recs, into: &c)
                binary.append(b)
                text.append(c)
            }
            let bprPath = "\(out)/hour-\(rate)hz.bpr", csvPath = "\(out)/hour-\(rate)hz.csv"
            writeFile(bprPath, binary)
            writeFile(csvPath, text)
            let bSize = binary.reduce(0) { $0 + $1.count }, cSize = text.reduce(0) { $0 + $1.count }
            binary = []
            text = []
            // Best of 3 (the page cache is warm after the first pass; all runs read from memory).
            var tb = Double.infinity, tc = Double.infinity
            for _ in 0..<3 {
                var t0 = now()
                let rb = readBinary(bprPath)
                tb = min(tb, now() - t0)
                t0 = now()
                let rc = readCSV(csvPath)
                tc = min(tc, now() - t0)
                precondition(rb.records == records && rc.records == records, "record counts differ: \(rb.records) \(rc.records) \(records)")
            }
            print("| \(rate) Hz + 10 Hz RMC/GGA | \(mb(bSize)) | \(mb(cSize)) | \(r1(Double(cSize) / Double(bSize)))× | "
                  + "\(r1(tb * 1000)) ms (\(r1(Double(bSize) / tb / 1e6)) MB/s, \(r1(Double(records) / tb / 1e6)) M records/s) | "
                  + "\(r1(tc * 1000)) ms (\(r1(Double(cSize) / tc / 1e6)) MB/s) | \(r1(tc / tb))× |")
        }
    }
}
