import BikePathCore
import BikePathTestSupport
@testable import BikePathSensors
#if canImport(Glibc)
    import Glibc
#endif

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func readFile(_ path: String) -> [UInt8] {
    (try? readWholeFile(path)) ?? []
}

/// Lines of a text file without line endings.
func textLines(_ path: String) -> [String] {
    // Split bytes, not Characters: Swift treats "\r\n" as one Character.
    readFile(path).split(separator: 0x0A).map { String(decoding: $0.filter { $0 != 0x0D }, as: UTF8.self) }
}
