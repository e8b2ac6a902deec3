import Foundation

/// The one JSON encoder of the project: keys sorted and slashes unescaped everywhere, so
/// equal values give equal bytes; documents pretty-printed, lines on one line. The wire
/// (`WireJSON`), the device's stored payloads, the status socket and every `--json` output
/// (docs/json.md) are written through it.
public enum JSONText {
    /// A document (`--json` of a command, an export), pretty-printed.
    /// - Throws: `EncodingError` for a non-finite number.
    public static func document<T: Encodable>(_ value: T) throws -> String {
        try text(value, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
    }

    /// One line (a stored payload, a wire body before `WireJSON`'s zeros).
    /// - Throws: `EncodingError` for a non-finite number.
    public static func compact<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try data(value), as: UTF8.self)
    }

    /// `compact`'s bytes.
    public static func data<T: Encodable>(_ value: T) throws -> Data {
        try encoder([.sortedKeys, .withoutEscapingSlashes]).encode(value)
    }

    /// One line of a stream (`replay --json`, `tail --json`). For values of strings
    /// and finite numbers only, which cannot fail to encode; `{}` if one ever did.
    public static func line<T: Encodable>(_ value: T) -> String {
        (try? compact(value)) ?? "{}"
    }

    /// One line of the status socket's protocol (`status --json`, `mark --json`, the
    /// daemon's events): the Swift types' keys written snake_case (`lastFixAgeS` →
    /// `last_fix_age_s`). Strings and finite numbers only: `{}` if it ever failed.
    public static func snakeCaseLine<T: Encodable>(_ value: T) -> String {
        (try? text(value, [.sortedKeys, .withoutEscapingSlashes], snakeCase: true)) ?? "{}"
    }

    /// A document with the Swift types' keys written snake_case (`diagnose --json`).
    /// - Throws: `EncodingError` for a non-finite number.
    public static func snakeCaseDocument<T: Encodable>(_ value: T) throws -> String {
        try text(value, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes], snakeCase: true)
    }

    private static func text<T: Encodable>(_ value: T, _ formatting: JSONEncoder.OutputFormatting, snakeCase: Bool = false) throws -> String
    {
        String(decoding: try encoder(formatting, snakeCase: snakeCase).encode(value), as: UTF8.self)
    }

    private static func encoder(_ formatting: JSONEncoder.OutputFormatting, snakeCase: Bool = false) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        if snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        return encoder
    }
}
