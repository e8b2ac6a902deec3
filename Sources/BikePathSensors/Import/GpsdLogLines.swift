#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The line rules of a gpsd regression log, written once for the importer and
/// `bikepathd decode`: `#` lines are comments, and a comment may declare
/// `# Delay-Cookie: C SECONDS`, whose C marks write boundaries for gpsd's test
/// harness and is not data: it is removed from the lines after it, as gpsd's own
/// harness does.
public struct GpsdLogLines: Sendable {
    public private(set) var delayCookie: UInt8?

    /// Creates a reader with no Delay-Cookie seen.
    public init() {}

    /// Whether `line` is a comment; a Delay-Cookie it declares applies from here on.
    public mutating func isComment(_ line: some Collection<UInt8>) -> Bool {
        guard line.first == UInt8(ascii: "#") else { return false }
        let key = Array("# Delay-Cookie:".utf8)
        if line.starts(with: key) {
            delayCookie = line.dropFirst(key.count).first { $0 != 0x20 && $0 != 0x09 } ?? delayCookie
        }
        return true
    }

    /// `line` without the Delay-Cookie character; nil when no cookie is declared
    /// (the line is then used as it is, without a copy).
    public func removingDelayCookie(_ line: some Collection<UInt8>) -> [UInt8]? {
        delayCookie.map { cookie in line.filter { $0 != cookie } }
    }
}

extension GpsdLogLines {
    static let chunkSize = 4 << 20

    /// Reads a text log in large chunks and hands out every line as a byte range
    /// (comments too: `isComment` tells them apart). Binary noise is passed on as
    /// it is: the decoder counts and skips it.
    /// - Throws: `ImportError` when reading fails.
    public static func forEachLine(fd: Int32, path: String, _ body: (UnsafeRawBufferPointer) -> Void) throws(ImportError) {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { storage.deallocate() }
        var filled = 0
        while true {
            let n = read(fd, storage.baseAddress! + filled, chunkSize - filled)
            if n < 0 {
                if errno == EINTR { continue }
                throw ImportError(path: path, message: "cannot read: \(String(cString: strerror(errno)))")
            }
            let end = filled + n
            let atEOF = n == 0
            var start = 0
            let base = UnsafeRawPointer(storage.baseAddress!)
            while start < end {
                guard let nl = memchr(base + start, 0x0A, end - start) else { break }
                let lineEnd = base.distance(to: UnsafeRawPointer(nl))
                body(UnsafeRawBufferPointer(start: base + start, count: lineEnd - start))
                start = lineEnd + 1
            }
            if atEOF {
                if start < end { body(UnsafeRawBufferPointer(start: base + start, count: end - start)) }
                return
            }
            if start == 0 && end == chunkSize {
                // A "line" as long as the whole buffer is noise: hand it over in one piece.
                body(UnsafeRawBufferPointer(start: base, count: end))
                filled = 0
                continue
            }
            let rest = end - start
            if rest > 0 { memmove(storage.baseAddress!, base + start, rest) }
            filled = rest
        }
    }
}
