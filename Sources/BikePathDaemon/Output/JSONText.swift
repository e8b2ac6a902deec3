import Foundation

/// The one JSON encoder of bikepathd's output (docs/json.md): keys sorted, slashes
/// unescaped; documents pretty-printed, lines on one line.
public enum JSONText {
    /// A document (`--json` of a command), pretty-printed.
    /// - Throws: `EncodingError` for a non-finite number.
    public static func document<T: Encodable>(_ value: T) throws -> String {
        try encode(value, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    }

    /// One line of a stream (`replay --json`, `tail --json`). For values of strings
    /// and finite numbers only, which cannot fail to encode; `{}` if one ever did.
    public static func line<T: Encodable>(_ value: T) -> String {
        (try? encode(value, [.sortedKeys, .withoutEscapingSlashes])) ?? "{}"
    }

    private static func encode<T: Encodable>(_ value: T, _ formatting: JSONEncoder.OutputFormatting) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
