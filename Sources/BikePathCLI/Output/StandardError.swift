import BikePathDaemon
import BikePathSensors

/// `text` on stderr, unbuffered (progress, warnings and errors interleave with
/// stdout in the order they happen).
public func standardError(_ text: String) {
    _ = Array(text.utf8).withUnsafeBytes { writeAll(2, $0) }
}

/// One line on stderr.
public func standardErrorLine(_ line: String) { standardError(line + "\n") }
