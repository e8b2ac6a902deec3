import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Room kept free for events and SOS on a disk that fills up: a file of
/// preallocated blocks beside the database (`PATH.reserve`). When a commit that
/// carries an event fails with `SQLITE_FULL`, the writer shrinks it by one step
/// and retries, so SQLite gets those blocks back. Obstacles may use the upper
/// half only; an SOS may use all of it. It grows back once the disk has room.
/// `release` keeps the lower half for an SOS relative to the full size, so a
/// reserve that could only be made small is left to SOS alone.
struct DiskReserve {
    let path: String
    let bytes: Int64
    let step: Int64

    init(storePath: String, bytes: Int, step: Int) {
        path = storePath + ".reserve"
        self.bytes = Int64(max(0, bytes))
        self.step = Int64(max(4096, step))
    }

    /// Bytes the reserve holds now (0 when there is no file).
    var size: Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// Grows the reserve towards its full size, taking at most a quarter of the
    /// free room (a reserve must not be what fills the disk: on a nearly full
    /// card it is smaller, and grows back as room returns), but up to half of it
    /// for its first step: one SOS commit needs ~53 KB of WAL frames (13 frames:
    /// FullDiskRunTests), and a new store on a card with 320 KiB free left 124 KB,
    /// whose quarter (31 KB) lost the SOS. Returns false when it is still short.
    @discardableResult
    func refill() -> Bool {
        let current = size
        guard current < bytes else { return true }
        var fs = statvfs()
        let directory = (path as NSString).deletingLastPathComponent
        guard statvfs(directory.isEmpty ? "." : directory, &fs) == 0 else { return false }
        let room = Int64(fs.f_bavail) * Int64(fs.f_frsize)
        let grow = min(bytes - current, max(room / 4, min(step - current, room / 2))) / 4096 * 4096
        guard grow > 0 else { return false }
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        // posix_fallocate really allocates the blocks (tmpfs, ext4, f2fs); glibc
        // writes zeros on file systems that cannot, which allocates them too.
        return posix_fallocate(fd, 0, off_t(current + grow)) == 0 && current + grow >= bytes
    }

    /// Frees one step, never below `floor` bytes. False when nothing is left above it.
    func release(keeping floor: Int64) -> Bool {
        let now = size
        guard now > floor else { return false }
        return truncate(path, off_t(max(floor, now - step))) == 0
    }

    func remove() { unlink(path) }
}
