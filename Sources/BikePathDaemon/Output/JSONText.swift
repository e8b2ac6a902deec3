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

    /// One line of the status socket's protocol (`status --json`, `mark --json`, the
    /// daemon's events): the Swift types' keys written snake_case (`lastFixAgeS` →
    /// `last_fix_age_s`). Strings and finite numbers only: `{}` if it ever failed.
    public static func snakeCaseLine<T: Encodable>(_ value: T) -> String {
        (try? encode(value, [.sortedKeys, .withoutEscapingSlashes], snakeCase: true)) ?? "{}"
    }

    /// A document with the Swift types' keys written snake_case (`diagnose --json`).
    /// - Throws: `EncodingError` for a non-finite number.
    public static func snakeCaseDocument<T: Encodable>(_ value: T) throws -> String {
        try encode(value, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes], snakeCase: true)
    }

    /// `value`'s own keys and `"schema": 1` beside them, for a type whose keys are not
    /// this module's to add to (the configuration's, the sensors' diagnosis, the socket's replies).
    public struct Versioned<Value: Encodable>: Encodable {
        public var value: Value
        public init(_ value: Value) { self.value = value }

        private enum Key: String, CodingKey { case schema }

        public func encode(to encoder: Encoder) throws {
            try value.encode(to: encoder)
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(JSONSchema.version, forKey: .schema)
        }
    }

    private static func encode<T: Encodable>(_ value: T, _ formatting: JSONEncoder.OutputFormatting, snakeCase: Bool = false) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        if snakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
