import Foundation
import Testing
@testable import BikePathDaemon
import Synchronization

/// Collects what the reporter writes, with a clock the test moves.
final class ProgressCapture: Sendable {
    private let captured = Mutex<(text: String, time: Double)>(("", 0))
    func write(_ s: String) { captured.withLock { $0.text += s } }
    func advance(_ seconds: Double) { captured.withLock { $0.time += seconds } }
    var now: Double { captured.withLock { $0.time } }
    var output: String { captured.withLock { $0.text } }

    func reporter(total: Int64?, style: ProgressReporter.Style, unit: String = "records") -> ProgressReporter {
        ProgressReporter(label: "import", total: total, unit: unit, style: style, write: { self.write($0) }, clock: { self.now })
    }
}

@Suite("Progress reporter", .ownThreads)
struct ProgressTests {
    @Test("Not a terminal: one plain line per 10 %, then the summary; no carriage returns")
    func plainLines() {
        let capture = ProgressCapture()
        let p = capture.reporter(total: 1000, style: .lines)
        for done in stride(from: 0, through: 1000, by: 7) { p.update(Int64(done)); capture.advance(0.01) }
        p.finish(1000, summary: "3 trips")
        let lines = capture.output.split(separator: "\n")
        #expect(!capture.output.contains("\r"))
        #expect(lines.first == "import: 0% (0 records/1000 records)")
        #expect(lines.count == 11)  // 0 %, 10 %, …, 90 %, and the summary
        #expect(lines[5] == "import: 50% (504 records/1000 records)")
        #expect(lines.last == "import: 1000 records done in 1.4 s, 3 trips")
    }

    @Test("On a terminal: a bar redrawn in place at most every 0.1 s, ended by a newline")
    func bar() {
        let capture = ProgressCapture()
        let p = capture.reporter(total: 4 * 1_048_576, style: .bar, unit: "bytes")
        p.update(0)
        p.update(1_048_576)  // same instant: not redrawn
        capture.advance(0.2)
        p.update(2 * 1_048_576)
        p.finish(4 * 1_048_576)
        let draws = capture.output.split(separator: "\r", omittingEmptySubsequences: true)
        #expect(draws.count == 3)
        #expect(draws[0] == "import [------------------------------]   0% 0 B/4.0 MiB\u{1B}[K")
        #expect(draws[1] == "import [###############---------------]  50% 2.0 MiB/4.0 MiB\u{1B}[K")
        #expect(draws[2] == "import: 4.0 MiB done in 0.2 s\u{1B}[K\n")
    }

    @Test("Without a total: counts only, a plain line every 5 s")
    func unknownTotal() {
        let capture = ProgressCapture()
        let p = capture.reporter(total: nil, style: .lines)
        for i in 1...100 { p.update(Int64(i * 10)); capture.advance(0.25) }
        p.finish()
        let lines = capture.output.split(separator: "\n")
        #expect(lines.count == 4 + 1)  // at 5, 10, 15, 20 s, then the summary
        #expect(lines[0] == "import: 210 records")
        #expect(lines.last == "import: 1000 records done in 25.0 s")
    }
}
