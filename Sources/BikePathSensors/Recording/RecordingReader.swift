#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import BikePathCore

/// Streams the records of a recording file in chunks (bounded memory: one chunk plus one
/// record). Damage that still leaves records readable (truncation, a corrupt region, an
/// unknown record kind) does not throw: it is collected in `report`, so a replay uses
/// everything that survived and the caller decides how loudly to complain.
public final class RecordingReader {
    public let path: String
    public let header: RecordingHeader
    public private(set) var report = RecordingReadReport()

    private var fd: Int32
    private var decoder = RecordingDecoder()
    private var chunk: [UInt8]
    private var offsetRead = 0

    /// Opens the file and reads its header. Throws for a missing file, a file that is not
    /// a recording, an unknown version or a bad header.
    public init(path: String, chunkSize: Int = 256 << 10) throws(RecordingFileError) {
        self.path = path
        chunk = [UInt8](repeating: 0, count: max(64, chunkSize))
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotOpen(path: path, errno: errno) }
        var found: RecordingHeader?
        while found == nil {
            guard let event = try Self.pull(&decoder, fd: fd, chunk: &chunk, path: path) else {
                recordingCloseFD(fd)
                throw .unreadable(path: path, .notARecording)
            }
            switch event {
            case .header(let h): found = h
            case .problem(let p):
                recordingCloseFD(fd)
                throw .unreadable(path: path, p)
            case .record: break
            }
        }
        header = found!
    }

    deinit {
        if fd >= 0 { recordingCloseFD(fd) }
    }

    /// The next record, or nil at the end of the file.
    public func next() throws(RecordingFileError) -> SensorRecord? {
        while fd >= 0 {
            guard let event = try Self.pull(&decoder, fd: fd, chunk: &chunk, path: path) else {
                recordingCloseFD(fd)
                fd = -1
                report.statistics = decoder.statistics
                return nil
            }
            switch event {
            case .record(let r): return r
            case .problem(let p): report.problems.append(p)
            case .header: break
            }
        }
        return nil
    }

    /// Calls `body` for every record, then returns the report.
    @discardableResult
    public func forEach(_ body: (SensorRecord) throws -> Void) throws -> RecordingReadReport {
        while let r = try next() { try body(r) }
        return report
    }

    /// True when the file starts with the recording magic (so a CLI can accept either a
    /// recording or an NMEA log).
    public static func isRecording(path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { recordingCloseFD(fd) }
        var head = [UInt8](repeating: 0, count: RecordingFormat.magic.count)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return n == head.count && head == RecordingFormat.magic
    }

    /// Header, every record and the report of a (small) file.
    public static func readAll(path: String) throws(RecordingFileError) -> (RecordingHeader, [SensorRecord], RecordingReadReport) {
        let reader = try RecordingReader(path: path)
        var records: [SensorRecord] = []
        while let r = try reader.next() { records.append(r) }
        return (reader.header, records, reader.report)
    }

    private static func pull(
        _ decoder: inout RecordingDecoder, fd: Int32, chunk: inout [UInt8],
        path: String
    ) throws(RecordingFileError) -> RecordingEvent? {
        while true {
            if let e = decoder.next() { return e }
            if decoder.isDone { return nil }
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, errno: errno)
            }
            if n == 0 {
                decoder.finish()
            } else {
                chunk.withUnsafeBytes { decoder.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            }
        }
    }
}

/// What reading a recording found besides records.
public struct RecordingReadReport: Sendable, Equatable {
    /// Non-fatal problems in file order: truncation, corrupt regions, malformed records.
    public var problems: [RecordingProblem] = []
    /// Final counts (complete once the reader reached the end).
    public var statistics = RecordingDecodeStatistics()
    /// Creates an empty report.
    public init() {}

    public var isTruncated: Bool {
        problems.contains { if case .truncated = $0 { true } else if case .zeroFilledTail = $0 { true } else { false } }
    }
    /// No problems and no skipped unknown records.
    public var isClean: Bool { problems.isEmpty && statistics.unknownRecordsSkipped == 0 }
}
