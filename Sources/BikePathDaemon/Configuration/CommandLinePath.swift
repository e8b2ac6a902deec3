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
