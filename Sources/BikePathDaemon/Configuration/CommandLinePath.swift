import Foundation

/// A path the rider typed on the command line, read like any Unix tool reads one: relative to the
/// working directory (`run --db s.sqlite`, `--status-socket st.sock`). The configuration file keeps
/// absolute paths (a relative one there would depend on where the daemon happened to start), and
/// says so (`Checks.absolutePath`).
public enum CommandLinePath {
    /// `path` made absolute against `workingDirectory`, `.` and `..` segments removed; an absolute
    /// path or an empty one (left for the checks to refuse) is returned as it is, and so is an
    /// abstract socket name (`@name`).
    public static func resolve(_ path: String, against workingDirectory: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), !path.hasPrefix("@") else { return path }
        var parts: [Substring] = []
        for part in (workingDirectory + "/" + path).split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `resolve(_:against:)` against this process's working directory.
    public static func resolve(_ path: String) -> String {
        resolve(path, against: FileManager.default.currentDirectoryPath)
    }
}

extension DaemonConfiguration {
    /// `$BIKEPATHD_DB` when set and not empty: the store of every command, `run` included
    /// (docs/storage.md), below `--db` and above the file's store path.
    public static var environmentStorePath: String? {
        ProcessInfo.processInfo.environment["BIKEPATHD_DB"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The store a command opens without `--db`: the daemon's own, so that the CLI on a device
    /// finds the running store.
    public var commandStorePath: String { Self.environmentStorePath ?? store.path }
}
