import Foundation

/// Files that hold secrets or every device's records: created 0600, and
/// flagged when others may read them.
enum PrivateFile {
    struct CreateFailed: Error, CustomStringConvertible {
        let path: String
        let reason: String
        var description: String { "cannot create \(path): \(reason)" }
    }

    /// Creates `path` empty with mode 0600 unless it exists. SQLite gives its -wal
    /// and -shm files the database file's mode, so they are private too.
    static func create(path: String) throws(CreateFailed) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if fd >= 0 {
            close(fd)
        } else if errno != EEXIST {
            throw CreateFailed(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// The octal mode when others may read or write `path`, else nil.
    static func openToOthers(path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & 0o006 != 0 else { return nil }
        return String(st.st_mode & 0o777, radix: 8)
    }
}
