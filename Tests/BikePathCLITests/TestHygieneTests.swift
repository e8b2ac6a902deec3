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

    /// swift-testing's `.timeLimit` clock runs while a test waits for an admission slot,
    /// so on two cores tests "exceeded" limits they never used; `.timeLimitOnceRunning`
    /// starts when the test runs.
    @Test func timeLimitsStartOnceATestRuns() throws {
        let tests = Paths.root + "/Tests"
        let files = try #require(FileManager.default.subpaths(atPath: tests)).filter {
            $0.hasSuffix(".swift") && $0 != "Support/OwnThreads.swift"  // which defines the replacement
        }
        let offenders = try files.filter {
            try String(contentsOfFile: tests + "/" + $0, encoding: .utf8).contains(".time" + "Limit(")
        }
        #expect(files.count > 50)
        #expect(offenders.isEmpty, "use .timeLimitOnceRunning instead of .timeLimit in \(offenders)")
    }

    /// Children are started by `runCommand`/`ChildProcess` (posix_spawn, waitpid with a
    /// deadline): Foundation's `Process.waitUntilExit` can miss a child's exit, and CI then
    /// hung until its limit with nothing said of which test.
    @Test func childrenAreNotWaitedForThroughFoundationProcess() throws {
        let tests = Paths.root + "/Tests"
        let files = try #require(FileManager.default.subpaths(atPath: tests)).filter { $0.hasSuffix(".swift") }
        let offenders = try files.filter {
            let text = try String(contentsOfFile: tests + "/" + $0, encoding: .utf8)
            return text.contains("waitUntil" + "Exit(") || text.contains("= " + "Process()")
        }
        #expect(files.count > 50)
        #expect(offenders.isEmpty, "use runCommand or ChildProcess instead of Foundation's Process in \(offenders)")
    }

    /// The replacement does its job: past its limit a test gets an issue and is cancelled.
    @Test func aTestPastItsLimitIsFailedAndCancelled() async {
        let started = ContinuousClock.now
        await withKnownIssue("the limit records one issue") {
            try await TimeLimitOnceRunning.run({ try await Task.sleep(for: .seconds(30)) }, within: .milliseconds(200))
        }
        #expect(started.duration(to: .now) < .seconds(10), "the sleeping body was cancelled")
    }
}
