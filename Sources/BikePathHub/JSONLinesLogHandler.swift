import Foundation
import Logging

/// swift-log handler printing one JSON object per line (JSON Lines) on stderr, for log
/// collectors (docs/hub.md, "Logs"): `ts` (ISO 8601 UTC, ms), `level`, `logger`, `msg`, then
/// every metadata key as a field of its own. One `write(2)` per event, so lines from
/// several threads never interleave.
public struct JSONLinesLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: FileHandle

    /// A handler for the logger `label`, writing events at `level` or above to `output`.
    public init(label: String, level: Logger.Level = .info, output: FileHandle = .standardError) {
        self.label = label
        logLevel = level
        self.output = output
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let extra = event.metadata { merged.merge(extra) { $1 } }
        output.write(Self.line(level: event.level, label: label, message: event.message.description, metadata: merged, now: Date()))
    }

    /// One event as a JSON object and a newline. Metadata values are strings (nested
    /// dictionaries and arrays as their description); a key named like a fixed field is
    /// written `meta.KEY`, so it can never hide the level or the message.
    public static func line(level: Logger.Level, label: String, message: String, metadata: Logger.Metadata, now: Date) -> Data {
        var fields: [String: String] = ["ts": timestamp(now), "level": level.rawValue, "logger": label, "msg": message]
        for (key, value) in metadata {
            fields[fields[key] == nil ? key : "meta.\(key)"] = "\(value)"
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = (try? encoder.encode(fields)) ?? Data("{}".utf8)  // [String: String] always encodes
        data.append(0x0A)
        return data
    }

    private static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
