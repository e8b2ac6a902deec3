import BikePathCore

/// Why a recording file could not be opened, read or written.
public enum RecordingFileError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotOpen(path: String, errno: Int32)
    case alreadyExists(path: String)
    case readFailed(path: String, errno: Int32)
    case writeFailed(path: String, errno: Int32)
    /// Not a recording, unknown version or a bad header.
    case unreadable(path: String, RecordingProblem)
    case encode(path: String, RecordingEncodeError)
    case closed(path: String)

    public var description: String {
        switch self {
        case .cannotOpen(let p, let e): "\(p): cannot open (\(errnoText(e)))"
        case .alreadyExists(let p): "\(p): already exists (use --force to overwrite)"
        case .readFailed(let p, let e): "\(p): read failed (\(errnoText(e)))"
        case .writeFailed(let p, let e): "\(p): write failed (\(errnoText(e)))"
        case .unreadable(let p, let problem): "\(p): \(problem)"
        case .encode(let p, let e): "\(p): \(e)"
        case .closed(let p): "\(p): writer already closed"
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func errnoText(_ e: Int32) -> String {
    guard let s = strerror(e) else { return "errno \(e)" }
    return String(cString: s)
}

/// close(2), callable from types that have their own `close()` method.
func recordingCloseFD(_ fd: Int32) {
    _ = close(fd)
}
