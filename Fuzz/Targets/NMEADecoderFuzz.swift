// libFuzzer target: the input is split into lines, each fed to the NMEA decoder as
// one sentence, and every fix is encoded as JSON. Built against the core sources by
// Fuzz/run.sh (swiftc -sanitize=fuzzer,address). A crash, a sanitizer report or a
// broken invariant (trap) is a finding.

@testable import BikePathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeRawBufferPointer(start: data, count: size)
    var decoder = NMEADecoder()
    var fixes: [GNSSFix] = []
    var json: [UInt8] = []
    var start = 0
    var lineIndex: Int64 = 0
    while start <= size {
        var end = start
        while end < size && input[end] != 0x0A { end += 1 }
        decoder.decode(
            sentence: UnsafeRawBufferPointer(rebasing: input[start..<end]),
            receivedAt: SampleTime(nanoseconds: lineIndex * 1_000_000), into: &fixes)
        lineIndex += 1
        start = end + 1
    }
    fixes += decoder.finish()
    for fix in fixes {
        FixJSON.append(fix, to: &json)
        if let lat = fix.latitude { precondition(abs(lat) <= 90, "latitude out of range") }
        if let lon = fix.longitude { precondition(abs(lon) <= 180, "longitude out of range") }
    }
    let s = decoder.statistics
    precondition(s.sentences + s.ignoredSentences + s.rejected == s.lines, "a line was not counted")
    precondition(s.fixes == fixes.count, "fix count mismatch")
    return 0
}
