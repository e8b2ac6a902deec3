import Foundation
import Testing

/// The one key-case convention of the project (docs/json.md, "Key case"): every key of
/// every JSON the device prints and the hub answers is snake_case.
public enum JSONKeyCase {
    /// Objects whose keys are values, not names: `status_m` (a route's metres per path
    /// status) is keyed by the path statuses, and `requiresMaintenance` is one.
    static let keyedByValues: Set<String> = ["status_m"]

    /// Whether `key` is snake_case: lowercase letters and digits in words joined by `_`.
    public static func isSnakeCase(_ key: String) -> Bool {
        !key.isEmpty
            && key.split(separator: "_", omittingEmptySubsequences: false).allSatisfy { word in
                !word.isEmpty && word.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) }
            }
    }

    /// The path of every key in `text` that is not snake_case (`$.trip.distanceM`). `text`
    /// is one JSON document or JSON lines; text that is neither has no keys.
    public static func offendingKeys(in text: String) -> [String] {
        let whole = Data(text.utf8)
        if let value = try? JSONSerialization.jsonObject(with: whole, options: [.fragmentsAllowed]) {
            return offendingKeys(in: value, path: "$")
        }
        return text.split(separator: "\n").enumerated().flatMap { (n, line) -> [String] in
            guard let value = try? JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed]) else { return [] }
            return offendingKeys(in: value, path: "line \(n + 1): $")
        }
    }

    /// `offendingKeys` of an already parsed value (`JSONSerialization`'s objects).
    public static func offendingKeys(in value: Any, path: String) -> [String] {
        if let object = value as? [String: Any] {
            return object.keys.sorted().flatMap { key -> [String] in
                let own = isSnakeCase(key) || keyedByValues.contains(path.split(separator: ".").last.map(String.init) ?? "")
                return (own ? [] : [path + "." + key]) + offendingKeys(in: object[key]!, path: path + "." + key)
            }
        }
        if let array = value as? [Any] {
            return array.enumerated().flatMap { offendingKeys(in: $0.element, path: path + "[\($0.offset)]") }
        }
        return []
    }

    /// Records an issue naming each key of `text` that is not snake_case, said by `source`
    /// (a command line, a request). Called on every `--json` output `runCommand` sees and on
    /// every JSON answer of the hub's test client, so the tests that already exist check it.
    public static func expectSnakeCase(_ text: String, from source: @autoclosure () -> String) {
        let offending = offendingKeys(in: text)
        if !offending.isEmpty {
            Issue.record("keys that are not snake_case (docs/json.md, \"Key case\") from \(source()): \(offending.prefix(20))")
        }
    }
}
