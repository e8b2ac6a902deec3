import BikePathCore
import BikePathDaemon
import BikePathSensors
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `bikepathd decode`: NMEA from a gpsd log or a recording, one gpsd-style JSON
/// fix per line on `output`, the decoder's counts on stderr.
public enum FixDecoding {
    /// `bikepathd decode FILE`: a recording's or a log's fixes on stdout, warnings and the
    /// error on stderr; false when the file could not be decoded.
    public static func decode(path: String) -> Bool {
        do throws(FixDecodingError) {
            if RecordingReader.isRecording(path: path) {
                for warning in try decodeRecording(path: path, output: STDOUT_FILENO) { standardErrorLine("warning: \(warning)") }
            } else {
                try decodeLog(path: path, output: STDOUT_FILENO)
            }
            return true
        } catch {
            standardErrorLine("error: \(error)")
            return false
        }
    }

    /// A text log (gpsd's test/daemon/*.log): `#` comments skipped, Delay-Cookies removed.
    /// A plain log has no receive times: a synthetic clock of 1 ms per line keeps
    /// sentences ordered and epochs distinct.
    /// - Throws: `FixDecodingError`.
    public static func decodeLog(path: String, output: Int32) throws(FixDecodingError) {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw .cannotOpen(path, String(cString: strerror(errno))) }
        defer { close(fd) }
        var writer = FixJSONWriter(output: output)
        var rules = GpsdLogLines()
        var index: Int64 = 0
        do {
            try GpsdLogLines.forEachLine(fd: fd, path: path) { line in
                guard !rules.isComment(line) else { return }
                let time = SampleTime(nanoseconds: index * 1_000_000)
                index += 1
                if let clean = rules.removingDelayCookie(line) {
                    clean.withUnsafeBytes { writer.feed(line: $0, receivedAt: time) }
                } else {
                    writer.feed(line: line, receivedAt: time)
                }
            }
        } catch { throw .unreadable(error.description) }
        try finish(&writer)
    }

    /// A recording: every sentence with its real receive time; IMU records are skipped.
    /// - Returns: the reader's warnings about damage it skipped.
    /// - Throws: `FixDecodingError`.
    public static func decodeRecording(path: String, output: Int32) throws(FixDecodingError) -> [String] {
        do {
            let reader = try RecordingReader(path: path)
            var writer = FixJSONWriter(output: output)
            while let record = try reader.next() {
                guard case .nmea(let time, var sentence) = record else { continue }
                sentence.withUTF8 { writer.feed(line: UnsafeRawBufferPointer($0), receivedAt: time) }
            }
            try finish(&writer)
            return reader.report.problems.map { "\(path): \($0)" }
        } catch let error as FixDecodingError {
            throw error
        } catch {
            throw .unreadable("\(error)")
        }
    }

    private static func finish(_ writer: inout FixJSONWriter) throws(FixDecodingError) {
        writer.finish()
        writer.printSummary()
        if let code = writer.writeError { throw .cannotWrite(String(cString: strerror(code))) }
    }
}

/// Why `decode` stopped.
public enum FixDecodingError: Error, Equatable, CustomStringConvertible {
    case cannotOpen(String, String)
    /// The file is not a log or recording that can be read (the reader's or importer's words).
    case unreadable(String)
    /// Writing the fixes failed (a full disk); what was written stays.
    case cannotWrite(String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): "cannot open \(path): \(reason)"
        case .unreadable(let why): why
        case .cannotWrite(let reason): "cannot write output: \(reason)"
        }
    }
}
