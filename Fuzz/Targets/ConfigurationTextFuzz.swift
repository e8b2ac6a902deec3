// fuzz-runs-divisor: 10
// fuzz-sources: Sources/BikePathDaemon/Configuration/TOMLPrescan.swift
// fuzz-cxx: Fuzz/Targets/TOMLParse.cpp
// libFuzzer target: configuration text goes through `TOMLPrescan`, and whatever it lets
// by goes through the real toml++ parser that TOMLKit wraps (Fuzz/Targets/TOMLParse.cpp,
// built with its assertions on). toml++ aborts on some malformed headers; the daemon
// must never reach one, so an abort here is a finding: the prescan let it by.

@_silgen_name("bikepath_fuzz_toml_parse")
func tomlParse(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard TOMLPrescan.check(text) == nil else { return 0 }
    // The daemon hands toml++ the decoded String's UTF-8 (invalid bytes become U+FFFD).
    var bytes = Array(text.utf8)
    bytes.append(0)
    _ = bytes.withUnsafeBufferPointer { tomlParse($0.baseAddress!, $0.count - 1) }
    return 0
}
