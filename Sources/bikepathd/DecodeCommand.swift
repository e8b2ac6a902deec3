import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathSensors
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `bikepathd decode FILE`: NMEA → one gpsd-style JSON object per fix on stdout.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode NMEA (a gpsd log or a recording) into one gpsd-style JSON fix per line on stdout.",
        discussion: "Only fix JSON goes to stdout; a summary of rejected input goes to stderr."
    )

    /// JSON lines are the only output; the flag is accepted so that existing scripts keep working.
    @Flag(name: .long, help: .hidden)
    var json = false

    @Argument(help: "A recording (.bpr) or a text NMEA log such as gpsd's test/daemon/*.log ('#' lines are comments).")
    var file: String

    func run() throws {
        if RecordingReader.isRecording(path: file) { return try decodeRecording() }
        let fd = open(file, O_RDONLY)
        guard fd >= 0 else {
            throw DecodeError.cannotOpen(file, String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var writer = FixJSONWriter(output: STDOUT_FILENO)
        var rules = GpsdLogLines()
        var index: Int64 = 0
        try ImportCommand.reportingErrors {
            try GpsdLogLines.forEachLine(fd: fd, path: file) { line in
                guard !rules.isComment(line) else { return }
                // A plain log has no receive times; a synthetic monotonic clock of 1 ms
                // per line keeps sentences ordered and epochs distinct.
                let time = SampleTime(nanoseconds: index * 1_000_000)
                index += 1
                if let clean = rules.removingDelayCookie(line) {
                    clean.withUnsafeBytes { writer.feed(line: $0, receivedAt: time) }
                } else {
                    writer.feed(line: line, receivedAt: time)
                }
            }
        }
        writer.finish()
        writer.printSummary()
        if let code = writer.writeError { throw DecodeError.cannotWrite(String(cString: strerror(code))) }
    }

    /// A recording carries the real receive time of every sentence; IMU records are skipped.
    private func decodeRecording() throws {
        try ImportCommand.reportingErrors {
            let reader = try RecordingReader(path: file)
            var writer = FixJSONWriter(output: STDOUT_FILENO)
            while let record = try reader.next() {
                guard case .nmea(let time, var sentence) = record else { continue }
                sentence.withUTF8 { writer.feed(line: UnsafeRawBufferPointer($0), receivedAt: time) }
            }
            writer.finish()
            writer.printSummary()
            if let code = writer.writeError {
                standardErrorLine("error: \(DecodeError.cannotWrite(String(cString: strerror(code))))")
                throw ExitCode(1)
            }
            for problem in reader.report.problems { standardErrorLine("warning: \(file): \(problem)") }
        }
    }
}

enum DecodeError: Error, CustomStringConvertible {
    case cannotOpen(String, String)
    case cannotWrite(String)

    var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .cannotWrite(let reason): "cannot write output: \(reason)"
        }
    }
}
