import ArgumentParser
import BikePathCore
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
            for problem in reader.report.problems { ImportCommand.stderrLine("warning: \(file): \(problem)") }
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

/// Feeds sentences to the decoder and writes the fixes as JSON in large writes.
/// Any source that has (receive time, sentence bytes) pairs can call `feed`.
struct FixJSONWriter {
    var decoder = NMEADecoder()
    private var fixes: [GNSSFix] = []
    private var buffer: [UInt8] = []
    private let output: Int32
    private let flushThreshold = 1 << 20

    init(output: Int32) {
        self.output = output
        buffer.reserveCapacity(flushThreshold + 4096)
        fixes.reserveCapacity(4)
    }

    mutating func feed(line: UnsafeRawBufferPointer, receivedAt: SampleTime) {
        decoder.decode(sentence: line, receivedAt: receivedAt, into: &fixes)
        if !fixes.isEmpty { emit() }
    }

    mutating func finish() {
        fixes.append(contentsOf: decoder.finish())
        emit()
        flush()
    }

    private mutating func emit() {
        for fix in fixes { FixJSON.append(fix, to: &buffer) }
        fixes.removeAll(keepingCapacity: true)
        if buffer.count >= flushThreshold { flush() }
    }

    private mutating func flush() {
        buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    // stdout closed (e.g. piped into `head`): nothing more to do.
                    return
                }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }

    func printSummary() {
        let s = decoder.statistics
        var text = "decode: \(s.lines) lines, \(s.sentences) sentences used, \(s.ignoredSentences) other NMEA ignored, \(s.fixes) fixes, \(s.rejected) rejected"
        let kinds = s.rejectCounts.filter { $0.count > 0 }.map { "\($0.kind) \($0.count)" }
        if !kinds.isEmpty { text += " (" + kinds.joined(separator: ", ") + ")" }
        text += "\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress!, $0.count) }
    }
}
