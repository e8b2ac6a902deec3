// fuzz-runs-divisor: 25
// (Measured: 698,025 inputs in 1,000 s, 698 a second, niced beside four builds on 2 cores,
// no crash; 1,000,000 / 25 = 40,000 inputs take under 60 s at that rate.)
// fuzz-sources: Sources/BikePathHub/Streets/OPLReader.swift
// libFuzzer target for the OPL reader (`OPLReader`), which reads what osmium prints of an
// operator's extract: any bytes, line by line, must give an element or a typed error
// naming that line, never a crash; what it reads must hold the reader's promises.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        do {
            switch try OPLReader.element(line, number: index + 1) {
            case .node(let node): check(node.location)
            case .way(let way): for ref in way.refs { check(ref.location) }
            case .other, nil: break
            }
        } catch {
            if error.line != index + 1 { fatalError("line \(index + 1) reported as \(error.line)") }
            _ = error.description
        }
    }
    return 0
}

/// A location read is in degrees on the globe.
func check(_ location: OPLLocation?) {
    guard let location else { return }
    if !(abs(location.latitude) <= 90 && abs(location.longitude) <= 180) { fatalError("\(location) is off the globe") }
}
