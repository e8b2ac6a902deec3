import BikePathAPI
import Foundation

/// How a command prints (docs/json.md): JSON with `--json`, else text; a failure is one line
/// (`{"error": …}` on stdout with `--json`, so a script reading stdout learns why) and exit status 1.
public protocol CommandPrinter {
    /// `--json`.
    var json: Bool { get }
}

extension CommandPrinter {
    /// Prints `message` as the command's error and ends it with exit status 1.
    public func fail(_ message: String) -> Never {
        if json { print(jsonText(["error": message])) } else { standardErrorLine("error: \(message)") }
        exit(1)
    }

    /// Prints `value` as JSON with `--json`, else `text()`.
    public func emit<T: Encodable>(_ value: T, text: () -> String) {
        print(json ? jsonText(value) : text())
    }
}

/// `value` as the JSON document a command prints.
public func jsonText<T: Encodable>(_ value: T) -> String {
    do { return try JSONText.document(value) } catch { jsonFailed(error) }
}

/// `diagnose --json`: the sensors' and store's own types, their keys written snake_case, with `schema`.
public func snakeCaseJSONText<T: Encodable>(_ value: T) -> String {
    do { return try JSONText.snakeCaseDocument(JSONText.Versioned(value)) } catch { jsonFailed(error) }
}

/// A non-finite number (never expected in a report): say so rather than print `{}`.
private func jsonFailed(_ error: any Error) -> Never {
    standardErrorLine("error: the JSON output cannot be written: \(error)")
    exit(1)
}
