import ArgumentParser
import BikePathDaemon
import Foundation

/// Where the running daemon answers: `--socket`, else the configuration's `status.socket`.
struct SocketOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The daemon's status socket (default: status.socket of the configuration).", valueName: "path"))
    var socket: String?
    @Option(help: ArgumentHelp("Configuration file to take status.socket from.", valueName: "file"))
    var config: String?

    func socketPath() throws -> String {
        if let socket { return socket }
        do {
            return try ConfigurationLoader.load(flag: config).status.socket
        } catch {
            throw failWithConfigurationProblems(error)
        }
    }
}

/// `bikepathd status`: asks the running daemon.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask the running daemon: trip state, last fix and its age, IMU rate, sync queue and last result, free space."
    )

    @OptionGroup var socket: SocketOptions
    @Flag(help: "One JSON object instead of text.") var json = false

    func run() throws {
        let status = try StatusClient.fetchStatus(path: try socket.socketPath())
        print(json ? status.jsonLine() : status.humanReadable())
    }
}

/// `bikepathd tail`: streams the daemon's events until interrupted.
struct TailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Stream the running daemon's events live (trips, obstacles, sync, sensor changes).",
        discussion: "Ends when the daemon stops. With --json, one JSON object per line."
    )

    @OptionGroup var socket: SocketOptions
    @Flag(help: "Newline-delimited JSON instead of text.") var json = false

    func run() throws {
        try StatusClient.tail(path: try socket.socketPath()) { event in
            // Unbuffered, line by line: `tail | grep` must see events as they happen.
            let line = (json ? TailJSON.line(event) : event.humanReadable()) + "\n"
            FileHandle.standardOutput.write(Data(line.utf8))
            return true
        }
    }
}

/// `tail --json`: one event per line in the schema of docs/json.md: `type`, `utc`,
/// `message`, and the event's fields with numbers and booleans as JSON numbers and
/// booleans (the socket carries them as text).
enum TailJSON {
    static func line(_ event: DaemonEvent) -> String {
        var object: [String: Value] = ["schema": .number(Double(JSONSchema.version)), "type": .text(event.kind),
                                       "utc": .text(event.time), "message": .text(event.message)]
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
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: encoder.encode(object), as: UTF8.self)) ?? "{}"
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
