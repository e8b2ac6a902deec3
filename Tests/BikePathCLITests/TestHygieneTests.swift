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
        let texts = try files.map { ($0, try String(contentsOfFile: tests + "/" + $0, encoding: .utf8)) }
        // The suites declared on their own threads, by name: a file of tests in an extension
        // of one of them (`extension MapPageBrowserTests {`) runs on its threads too.
        let ownThreadSuites = Set(
            texts.flatMap { _, text in
                text.split(separator: "\n").filter { $0.contains("@Suite") && $0.contains(".ownThreads") }.compactMap { line in
                    line.split(separator: " ").drop { $0 != "struct" }.dropFirst().first.map {
                        String($0.prefix { $0.isLetter || $0.isNumber })
                    }
                }
            })
        var missing: [String] = []
        var checked = 0
        for (file, text) in texts {
            guard text.contains("@Test") else { continue }
            checked += 1
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let suites = lines.filter { $0.hasPrefix("@Suite") }
            let extended = lines.filter { $0.hasPrefix("extension ") }.map {
                String($0.dropFirst(10).prefix { $0.isLetter || $0.isNumber })
            }
            let inOwnThreadSuites = !extended.isEmpty && extended.allSatisfy(ownThreadSuites.contains)
            if suites.isEmpty ? !inOwnThreadSuites : suites.contains(where: { !$0.contains(".ownThreads") }) { missing.append(file) }
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

    /// A test is named for the behaviour it holds, not for the issue that asked for it: no
    /// file, type, function or display name under Tests names an issue number (a file
    /// `Issue22Tests.swift`, a suite shown as "Issue 38"), which says nothing once the issue
    /// is closed. The rule is first shown to catch each form.
    @Test func noTestIsNamedAfterAnIssue() throws {
        #expect(try Self.issueNames(file: "BikePathReviewTests/Issue22Tests.swift", text: "") == ["Issue22Tests.swift"])
        // Split so that this file does not declare what it describes.
        let sample = "@Suite(\"Issue 38: vocabulary\") struct Issue" + "38Tests {\n    @Test func issue" + "_12_undo() {}\n"
        #expect(try Self.issueNames(file: "A.swift", text: sample) == ["Issue 38: vocabulary", "Issue38Tests", "issue_12_undo"])
        #expect(try Self.issueNames(file: "A.swift", text: "func issuePairingCode() {} // issue 12").isEmpty)

        let tests = Paths.root + "/Tests"
        let files = try #require(FileManager.default.subpaths(atPath: tests)).filter { $0.hasSuffix(".swift") }
        var offenders: [String] = []
        for file in files {
            let text = try String(contentsOfFile: tests + "/" + file, encoding: .utf8)
            offenders += try Self.issueNames(file: file, text: text).map { "\(file): \($0)" }
        }
        #expect(files.count > 50)
        #expect(offenders.isEmpty, "name these after what they check: \(offenders)")
    }

    /// The names in `file` (its own name, its types' and functions' names, its `@Suite` and
    /// `@Test` display names) that name an issue number.
    static func issueNames(file: String, text: String) throws -> [String] {
        let declared = #"(?:struct|class|enum|actor|func)\s+([A-Za-z_][A-Za-z0-9_]*)|@(?:Suite|Test)\("([^"]*)""#
        let names =
            [String(file.split(separator: "/").last ?? "")]
            + text.matches(of: try Regex(declared)).compactMap { match in
                (match.output[1].substring ?? match.output[2].substring).map(String.init)
            }
        return names.filter { $0.range(of: #"(?i)issue[ _#]*[0-9]"#, options: .regularExpression) != nil }
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
