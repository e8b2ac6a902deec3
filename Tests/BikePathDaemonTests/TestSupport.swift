import BikePathTestSupport
import Foundation
import Testing

/// Files of the repository itself (the example config, the docs, the unit).
enum Repository {
    static let root = URL(fileURLWithPath: packageRoot, isDirectory: true)

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(relativePath), encoding: .utf8)
    }

    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: nil))
        return try String(contentsOf: url, encoding: .utf8)
    }
}
