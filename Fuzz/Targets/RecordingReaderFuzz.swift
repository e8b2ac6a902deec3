// fuzz-runs-divisor: 8
// (CI budget: ~0.9 ms an input with its chunked re-decode, 250,000 took 224 s of a
// clean-clone CI run on 2 cores (2026-11-29), the longest target; 125,000 keep the 45-minute
// run in budget.)
// libFuzzer target for the recording decoder (compiled with the core by Fuzz/run.sh).
// Any byte string must decode without a crash, without unbounded memory, and to the same
// events whether it arrives in one piece or in chunks; a trap here is a bug.

@testable import BikePathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    // The first byte picks the mode: odd puts a valid file start (magic, version, header)
    // in front of the rest, so the fuzzer spends its time in record framing, resync and
    // truncation; even feeds the rest as it is (magic, version and header parsing).
    guard size > 0 else { return 0 }
    var input: [UInt8] = []
    if bytes[0] & 1 == 1 {
        input = (try? RecordingEncoder.fileStart(RecordingHeader(source: "fuzz"))) ?? []
    }
    input.append(contentsOf: bytes.dropFirst())
    let whole = summary(input, chunk: input.count)
    let chunk = size > 1 ? Int(bytes[size - 1] % 61) + 1 : 1
    let pieces = summary(input, chunk: chunk)
    if whole != pieces {
        fatalError("chunked decoding (\(chunk)) differs: \(whole) vs \(pieces)")
    }
    if whole.records > 0 && whole.headers != 1 { fatalError("records without a header") }
    return 0
}

/// What decoding produced, reduced to comparable values (NaN floats make records unequal
/// to themselves, so records are summarised by count and a time checksum).
private struct Summary: Equatable {
    var headers = 0
    var records = 0
    var timeSum: Int64 = 0
    var problems: [RecordingProblem] = []
    var statistics = RecordingDecodeStatistics()
}

private func summary(_ input: [UInt8], chunk: Int) -> Summary {
    var run = Run()
    input.withUnsafeBytes { raw in
        var i = 0
        while i < raw.count {
            let n = min(max(chunk, 1), raw.count - i)
            run.decoder.feed(UnsafeRawBufferPointer(rebasing: raw[i..<(i + n)]))
            i += n
            run.drain()
        }
    }
    run.decoder.finish()
    run.drain()
    // After finish() and a drained queue the decoder must be done: nothing may hang.
    if !run.decoder.isDone { fatalError("decoder not done after finish()") }
    run.out.statistics = run.decoder.statistics
    if run.out.headers > 1 { fatalError("more than one header event") }
    return run.out
}

/// Stored properties rather than captured locals, so access checks stay static (fast).
private struct Run {
    var decoder = RecordingDecoder()
    var out = Summary()

    mutating func drain() {
        while let e = decoder.next() {
            switch e {
            case .header: out.headers += 1
            case .record(let r):
                out.records += 1
                out.timeSum &+= r.time.nanoseconds
            case .problem(let p): out.problems.append(p)
            }
        }
    }
}
