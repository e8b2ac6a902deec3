import BikePathTestSupport
import Foundation
import Testing

/// Rules about the tests themselves, checked on their source.
@Suite(.ownThreads) struct TestHygieneTests {
    /// Every suite outside the pure core runs on `OwnThreadsExecutor`: one that blocks the
    /// global pool (a child process, a socket read) stalls the in-process servers of the
    /// others, and CI then sees their requests time out.
    @Test func everySuiteOutsideTheCoreRunsOnItsOwnThreads() throws {
        let tests = Paths.root + "/Tests"
        let files = try #require(FileManager.default.subpaths(atPath: tests)).filter {
            $0.hasSuffix(".swift") && !$0.hasPrefix("BikePathCoreTests/") && !$0.hasPrefix("Support/") && !$0.hasPrefix("HubFaults/")
        }
        var missing: [String] = []
        var checked = 0
        for file in files {
            let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            guard text.contains("@Test") else { continue }
            checked += 1
            let suites = text.split(separator: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("@Suite") }
            if suites.isEmpty || suites.contains(where: { !$0.contains(".ownThreads") }) { missing.append(file) }
        }
        #expect(checked > 50, "found only \(checked) test files under \(tests)")
        #expect(missing.isEmpty, "suites without .ownThreads: \(missing)")
    }
}
