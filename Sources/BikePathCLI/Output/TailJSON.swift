import BikePathAPI
import BikePathDaemon
import Foundation

/// `tail --json`: one event per line in the schema of docs/json.md: `type`, `utc`,
/// `message`, and the event's fields with numbers and booleans as JSON numbers and
/// booleans (the socket carries them as text).
public enum TailJSON {
    /// `bikepathd tail`: one event on stdout, unbuffered and line by line (`tail | grep` must see
    /// events as they happen); true: keep reading.
    public static func write(_ event: DaemonEvent, json: Bool) -> Bool {
        let text = (json ? line(event) : event.humanReadable()) + "\n"
        FileHandle.standardOutput.write(Data(text.utf8))
        return true
    }

    /// One event as one JSON line for `tail --json`.
    public static func line(_ event: DaemonEvent) -> String {
        var object: [String: Value] = [
            "schema": .number(Double(JSONSchema.version)), "type": .text(event.kind),
            "utc": .text(event.time), "message": .text(event.message),
        ]
        for (key, text) in event.fields where object[key] == nil {
            // Only keys that name a unit (or a count) hold numbers: an id made of digits stays text.
            if isNumeric(key), let number = Double(text), number.isFinite {
                object[key] = .number(number)
            } else if let flag = Bool(text) {
                object[key] = .flag(flag)
            } else {
                object[key] = .text(text)
            }
        }
        // Strings, finite numbers and booleans only: encoding cannot fail.
        return JSONText.line(object)
    }

    static func isNumeric(_ key: String) -> Bool {
        key == "count" || ["_s", "_m", "_mps", "_mps2", "_g", "_hz"].contains { key.hasSuffix($0) }
    }

    enum Value: Encodable {
        case text(String), number(Double), flag(Bool)
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .text(let s): try c.encode(s)
            case .number(let n): if n == n.rounded(), abs(n) < 1e15 { try c.encode(Int64(n)) } else { try c.encode(n) }
            case .flag(let b): try c.encode(b)
            }
        }
    }
}
