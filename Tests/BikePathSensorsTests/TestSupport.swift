import BikePathCore
@testable import BikePathSensors
#if canImport(Glibc)
import Glibc
#endif

enum Paths {
    /// Repository root, found from this source file (tests always run from a checkout).
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/BikePathSensorsTests/TestSupport.swift
        return parts.joined(separator: "/")
    }()
    static let fixtures = root + "/Tests/BikePathSensorsTests/Fixtures"
    static let datasets = root + "/../shared/datasets"
    static var hasSharedDatasets: Bool { access(datasets + "/allthedocks/GX010056-accl.csv", R_OK) == 0 }
}

/// A fresh temporary directory, removed by the caller with `remove()`.
struct TemporaryDirectory {
    let path: String
    init() {
        var template = Array("/tmp/bikepath-test-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: p!)
    }
    func file(_ name: String) -> String { path + "/" + name }
    func remove() {
        if let d = opendir(path) {
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink(path + "/" + name) }
            }
            closedir(d)
        }
        rmdir(path)
    }
}

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
