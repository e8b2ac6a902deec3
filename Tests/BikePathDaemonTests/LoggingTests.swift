import Foundation
import Logging
import Testing
@testable import BikePathDaemon

@Suite("Journal log handler", .ownThreads)
struct LoggingTests {
    @Test("Each level carries its syslog priority prefix, on every line")
    func prefixes() {
        let expected: [(Logger.Level, String)] = [
            (.trace, "<7>"), (.debug, "<7>"), (.info, "<6>"), (.notice, "<5>"),
            (.warning, "<4>"), (.error, "<3>"), (.critical, "<2>"),
        ]
        for (level, prefix) in expected {
            let text = JournalLogHandler.render(
                level: level, label: "gnss", message: "one\ntwo", metadata: ["port": "2947"],
                format: .journal, now: Date(timeIntervalSince1970: 0))
            #expect(text == "\(prefix)gnss: one\n\(prefix)two port=2947\n")
        }
    }

    @Test("Outside the journal lines start with a UTC timestamp and the level")
    func timestamped() {
        let text = JournalLogHandler.render(
            level: .warning, label: "store", message: "disk full", metadata: [:],
            format: .timestamped, now: Date(timeIntervalSince1970: 1_763_732_400.25))
        #expect(text == "2025-11-21T13:40:00.250Z WARNING store: disk full\n")
    }

    @Test("JOURNAL_STREAM selects the journal form only when it names stderr's stream")
    func detection() {
        #expect(LogLineFormat.detect(environment: [:], stderrIdentity: (1, 2)) == .timestamped)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "1:2"], stderrIdentity: (1, 2)) == .journal)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "1:3"], stderrIdentity: (1, 2)) == .timestamped)
        #expect(LogLineFormat.detect(environment: ["JOURNAL_STREAM": "junk"], stderrIdentity: (1, 2)) == .timestamped)
    }

    @Test("The handler writes whole lines to its descriptor and honours the level")
    func writesThroughPipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        var logger = Logger(label: "test") { label in
            JournalLogHandler(label: label, level: .notice, format: .journal, sink: LogSink(fd: fds[1]))
        }
        logger[metadataKey: "trip"] = "7"
        logger.info("hidden")
        logger.notice("shown")
        logger.error("bad", metadata: ["code": "3"])
        close(fds[1])
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &bytes, bytes.count)
        let text = String(decoding: bytes[0..<max(0, n)], as: UTF8.self)
        #expect(text == "<5>test: shown trip=7\n<3>test: bad code=3 trip=7\n")
    }
}
