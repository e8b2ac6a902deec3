#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import BikePathCore

/// An importer could not use its input. The description names the file and, where there
/// is one, the line: `GX010056-gps.csv:17: column Speed: 'fast' is not a number`.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var message: String

    /// Creates an error about `path` (and its 1-based `line`, when there is one).
    public init(path: String, line: Int? = nil, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        line.map { "\(path):\($0): \(message)" } ?? "\(path): \(message)"
    }
}

/// The whole file (importer inputs are a few MB; recordings themselves are streamed).
func readWholeFile(_ path: String) throws(ImportError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw ImportError(path: path, message: "cannot open (\(errnoText(errno)))") }
    defer { recordingCloseFD(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw ImportError(path: path, message: "read failed (\(errnoText(errno)))")
        }
        if n == 0 { return out }
        out.append(contentsOf: chunk[0..<n])
    }
}

func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

func baseName(_ path: String) -> String {
    String(path.split(separator: "/").last ?? Substring(path))
}

/// A finished import: what to put in a recording.
public struct ImportedRecording: Sendable {
    public var header: RecordingHeader
    /// In receive-time order.
    public var records: [SensorRecord]

    /// Writes the recording to `path` via a `.partial` file renamed at the end, so a failed
    /// import never leaves a half-written file under the final name.
    public func write(to path: String, overwrite: Bool = false) throws(RecordingFileError) {
        if !overwrite, fileExists(path) { throw .alreadyExists(path: path) }
        let partial = path + ".partial"
        do {
            let writer = try RecordingWriter(path: partial, header: header, overwrite: true)
            try writer.append(contentsOf: records)
            try writer.close()
        } catch {
            unlink(partial)
            throw error
        }
        guard rename(partial, path) == 0 else {
            let e = errno
            unlink(partial)
            throw .writeFailed(path: path, errno: e)
        }
    }
}
