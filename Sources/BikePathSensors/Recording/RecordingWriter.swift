#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import BikePathCore

/// Appends sensor records to a recording file.
///
/// Buffering and durability: records are encoded into a memory buffer; the buffer is
/// written (write(2)) when it reaches `bufferSize` and on every `flush()`. IMU samples are
/// held until a block of `imuBlockSize` samples is full, or until another record kind,
/// `flush()` or `close()` comes, so blocks stay in time order with the other records.
/// `fsync` follows `SyncPolicy`: `.onClose` (imports: one fsync at the end) or
/// `.everyFlush` (live: the daemon calls `flush()` about once a second, so a power loss
/// costs at most about a second; the reader recovers every complete record before it).
public final class RecordingWriter {
    /// When the writer fsyncs: only at `close()`, or at every `flush()` as well.
    public enum SyncPolicy: Sendable { case onClose, everyFlush }

    public let path: String
    public let syncPolicy: SyncPolicy
    public private(set) var bytesWritten = 0
    public private(set) var recordsAppended = 0

    private var fd: Int32
    private var buffer: [UInt8] = []
    private var pendingIMU: [IMUSample] = []
    private let bufferSize: Int
    private let imuBlockSize: Int

    /// Creates the file (refusing to replace an existing one unless `overwrite`) and writes the header.
    public init(
        path: String, header: RecordingHeader, overwrite: Bool = false, syncPolicy: SyncPolicy = .onClose,
        bufferSize: Int = 64 << 10, imuBlockSize: Int = 200
    ) throws(RecordingFileError) {
        self.path = path
        self.syncPolicy = syncPolicy
        self.bufferSize = bufferSize
        self.imuBlockSize = max(1, min(imuBlockSize, RecordingFormat.maxIMUBlockSamples))
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL)
        let fd = open(path, flags, 0o644)
        guard fd >= 0 else {
            let e = errno
            throw e == EEXIST ? .alreadyExists(path: path) : .cannotOpen(path: path, errno: e)
        }
        self.fd = fd
        do {
            buffer = try RecordingEncoder.fileStart(header)
        } catch {
            recordingCloseFD(fd)
            throw .encode(path: path, error)
        }
        pendingIMU.reserveCapacity(self.imuBlockSize)
        try writeBuffer()
    }

    deinit {
        // Unclosed when the owner failed first: its error is reported; deinit cannot throw.
        if fd >= 0 { try? close() }
    }

    /// Appends one record (IMU samples are grouped into blocks); writes the buffer when it is full.
    /// - Throws: `RecordingFileError.closed` after `close()`, `.encode` for a sentence the
    ///   format cannot hold (nothing is appended), `.writeFailed` when the write fails.
    public func append(_ record: SensorRecord) throws(RecordingFileError) {
        guard fd >= 0 else { throw .closed(path: path) }
        recordsAppended += 1
        if case .imu(let s) = record {
            pendingIMU.append(s)
            if pendingIMU.count >= imuBlockSize { encodePendingIMU() }
        } else {
            encodePendingIMU()
            do {
                switch record {
                case .nmea(let t, let s): try RecordingEncoder.appendNMEA(s, at: t, to: &buffer)
                case .marker(let t, let m): RecordingEncoder.appendMarker(m, at: t, to: &buffer)
                case .label(let t, let k): RecordingEncoder.appendLabel(k, at: t, to: &buffer)
                case .imu: break
                }
            } catch {
                recordsAppended -= 1
                throw .encode(path: path, error)
            }
        }
        if buffer.count >= bufferSize { try writeBuffer() }
    }

    /// Appends the records in order.
    /// - Throws: `RecordingFileError`, as `append(_:)`, at the first record that fails; those
    ///   before it stay appended.
    public func append(contentsOf records: some Sequence<SensorRecord>) throws(RecordingFileError) {
        for r in records { try append(r) }
    }

    /// Writes everything appended so far, including a partial IMU block; fsyncs under `.everyFlush`.
    public func flush() throws(RecordingFileError) {
        guard fd >= 0 else { throw .closed(path: path) }
        encodePendingIMU()
        try writeBuffer()
        if syncPolicy == .everyFlush { try sync() }
    }

    /// Flushes, fsyncs and closes. Further appends throw.
    public func close() throws(RecordingFileError) {
        guard fd >= 0 else { return }
        defer {
            recordingCloseFD(fd)
            fd = -1
        }
        encodePendingIMU()
        try writeBuffer()
        try sync()
    }

    private func sync() throws(RecordingFileError) {
        guard fsync(fd) == 0 else { throw .writeFailed(path: path, errno: errno) }
    }

    private func encodePendingIMU() {
        guard !pendingIMU.isEmpty else { return }
        RecordingEncoder.appendIMU(pendingIMU, maxSamplesPerBlock: imuBlockSize, to: &buffer)
        pendingIMU.removeAll(keepingCapacity: true)
    }

    private func writeBuffer() throws(RecordingFileError) {
        let (done, err) = buffer.withUnsafeBytes { writeAll(fd, $0) }
        bytesWritten += done
        buffer.removeFirst(done)
        if let err { throw .writeFailed(path: path, errno: err) }
    }
}
