import BikePathSensors
import Foundation
import Logging

/// How log lines look on stderr.
public enum LogLineFormat: Sendable, Equatable {
    /// Under systemd: `<N>` syslog priority prefix on every line (journald parses
    /// it into PRIORITY=) and no timestamp (journald adds its own).
    case journal
    /// On a terminal or in a file: an ISO 8601 UTC timestamp and the level word.
    case timestamped

    /// systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connected to
    /// stderr. It is inherited by children, so the prefixes are used only when
    /// stderr is still that very stream (not redirected to a file by a script).
    public static func detect(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        stderrIdentity: (device: UInt64, inode: UInt64)? = LogLineFormat.stderrIdentity()
    ) -> LogLineFormat {
        guard let value = environment["JOURNAL_STREAM"] else { return .timestamped }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return .timestamped }
        guard let identity = stderrIdentity else { return .timestamped }
        return identity.device == dev && identity.inode == ino ? .journal : .timestamped
    }

    /// The device and inode of stderr, to compare with JOURNAL_STREAM; nil when fstat fails.
    public static func stderrIdentity() -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard fstat(STDERR_FILENO, &st) == 0 else { return nil }
        return (UInt64(st.st_dev), UInt64(st.st_ino))
    }
}

/// swift-log handler writing one `write(2)` per message to a file descriptor
/// (stderr by default), so lines from several threads never interleave.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let format: LogLineFormat
    private let sink: LogSink

    /// Creates a handler for the logger `label`, writing messages at `level` or above in `format`.
    public init(label: String, level: Logger.Level = .info, format: LogLineFormat, sink: LogSink = .standardError) {
        self.label = label
        self.logLevel = level
        self.format = format
        self.sink = sink
    }

    /// The logger's own metadata value for `key`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes one message as one line, with the logger's, the provider's and the message's
    /// metadata (later ones win).
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        sink.write(
            Self.render(
                level: event.level, label: label, message: event.message.description,
                metadata: merged, format: format, now: Date()))
    }

    /// syslog priorities as journald reads them (sd-daemon.h SD_ERR etc.).
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    /// Every line of a multi-line message gets the prefix: journald splits on
    /// newlines and would otherwise log the continuation lines at the default priority.
    public static func render(
        level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        format: LogLineFormat, now: Date
    ) -> String {
        var text = "\(label): \(message)"
        if !metadata.isEmpty {
            text += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        let prefix: String
        switch format {
        case .journal: prefix = "<\(priority(level))>"
        case .timestamped: prefix = "\(timestamp(now)) \(level.rawValue.uppercased()) "
        }
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            out += prefix + line + "\n"
        }
        return out
    }

    static func timestamp(_ date: Date) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var t = time_t(millis / 1000)
        var tm = tm()
        gmtime_r(&t, &tm)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
            tm.tm_hour, tm.tm_min, tm.tm_sec, Int(millis % 1000))
    }
}

/// Where log text goes: a file descriptor, written whole per message.
public struct LogSink: Sendable {
    public let fd: Int32
    public static let standardError = LogSink(fd: STDERR_FILENO)
    /// Creates a sink writing to `fd` (not closed by the sink).
    public init(fd: Int32) { self.fd = fd }

    func write(_ text: String) {
        // A failing stderr has nowhere left to be reported: its errno is dropped.
        _ = Array(text.utf8).withUnsafeBytes { writeAll(fd, $0) }
    }
}

/// Sets swift-log up once per process: `bikepathd` calls this before anything logs.
public enum DaemonLogging {
    /// Makes every logger write through `JournalLogHandler` at `level`; swift-log allows this
    /// once per process.
    public static func bootstrap(level: LogLevelName, format: LogLineFormat = .detect()) {
        let swiftLevel = Logger.Level(rawValue: level.rawValue) ?? .info
        LoggingSystem.bootstrap { label in JournalLogHandler(label: label, level: swiftLevel, format: format) }
    }
}
