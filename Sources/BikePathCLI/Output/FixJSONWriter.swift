import BikePathCore
import BikePathDaemon
import BikePathSensors
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Feeds sentences to the decoder and writes the fixes as JSON in large writes.
/// Any source that has (receive time, sentence bytes) pairs can call `feed`.
public struct FixJSONWriter {
    public var decoder = NMEADecoder()
    private var fixes: [GNSSFix] = []
    private var buffer: [UInt8] = []
    private let output: Int32
    private let flushThreshold = 1 << 20

    /// `output`: the file descriptor the JSON lines go to (stdout for `decode`).
    public init(output: Int32) {
        self.output = output
        buffer.reserveCapacity(flushThreshold + 4096)
        fixes.reserveCapacity(4)
    }

    /// Feeds one sentence; the fixes of the epochs it completes are buffered and written once 1
    /// MiB has gathered.
    public mutating func feed(line: UnsafeRawBufferPointer, receivedAt: SampleTime) {
        decoder.decode(sentence: line, receivedAt: receivedAt, into: &fixes)
        if !fixes.isEmpty { emit() }
    }

    /// Flushes the epoch in progress and writes everything buffered.
    public mutating func finish() {
        fixes.append(contentsOf: decoder.finish())
        emit()
        flush()
    }

    private mutating func emit() {
        for fix in fixes { FixJSON.append(fix, to: &buffer) }
        fixes.removeAll(keepingCapacity: true)
        if buffer.count >= flushThreshold { flush() }
    }

    /// The errno of a failed write (a full disk: ENOSPC), after which nothing
    /// more is written; nil while every write succeeded or the reader went away
    /// (EPIPE: piped into `head`, which is not a failure).
    public private(set) var writeError: Int32?
    private var readerGone = false

    private mutating func flush() {
        defer { buffer.removeAll(keepingCapacity: true) }
        guard writeError == nil, !readerGone else { return }
        let failure = buffer.withUnsafeBytes { writeAll(output, $0).errno }
        if failure == EPIPE { readerGone = true } else { writeError = failure }
    }

    /// Writes the decoder's counts (lines, sentences, fixes, rejects by kind) to stderr.
    public func printSummary() {
        let s = decoder.statistics
        var text =
            "decode: \(s.lines) lines, \(s.sentences) sentences used, \(s.ignoredSentences) other NMEA ignored, \(s.fixes) fixes, \(s.rejected) rejected"
        let kinds = s.rejectCounts.filter { $0.count > 0 }.map { "\($0.kind) \($0.count)" }
        if !kinds.isEmpty { text += " (" + kinds.joined(separator: ", ") + ")" }
        text += "\n"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(STDERR_FILENO, $0.baseAddress!, $0.count) }
    }
}
