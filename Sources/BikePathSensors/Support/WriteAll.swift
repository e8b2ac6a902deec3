#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes all of `bytes` to `fd`, retrying short writes and EINTR: the one
/// write loop of recordings, `decode`'s JSON and the log. Returns how many bytes
/// went out, and the errno that stopped it early (nil when all were written).
public func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> (written: Int, errno: Int32?) {
    var done = 0
    while done < bytes.count {
        let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
        if n < 0 {
            if errno == EINTR { continue }
            return (done, errno)
        }
        done += n
    }
    return (done, nil)
}
