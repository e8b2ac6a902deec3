import Foundation
import Testing

/// Files of the repository itself (the example config, the docs, the unit).
enum Repository {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }
}

/// A fresh directory under /tmp, removed by the caller. Short, because Unix
/// socket paths are limited to 107 bytes.
func makeTemporaryDirectory() throws -> String {
    var template = Array("/tmp/bpd-XXXXXX".utf8CString)
    guard let p = mkdtemp(&template) else { throw POSIXError(.EIO) }
    return String(cString: p)
}
