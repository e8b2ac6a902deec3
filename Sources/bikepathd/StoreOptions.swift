import ArgumentParser
import BikePathDaemon
import BikePathStore
import Foundation

/// `--db PATH` and `--json`, shared by every store subcommand.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "Path of the store database (default: $BIKEPATHD_DB, else the daemon's default store.path).")
    var databasePath: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    var path: String { databasePath ?? Self.defaultPath }

    /// The daemon's own default, so that the CLI on a device finds the running store.
    static var defaultPath: String {
        ProcessInfo.processInfo.environment["BIKEPATHD_DB"] ?? DaemonConfiguration().store.path
    }

    /// Opens the store; a store error becomes a clear message and exit code 1.
    func open() throws -> Store {
        try run { try Store.open(path: path) }
    }

    /// Runs `body`; a `StoreError` is printed (as JSON with --json) and ends the command with exit code 1.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            fail(error.description)
        } catch let error as ValidationError {
            throw error
        } catch {
            fail("\(error)")
        }
    }

    func fail(_ message: String) -> Never {
        if json {
            print(jsonText(["error": message]))
        } else {
            FileHandle.standardError.write(Data("error: \(message)\n".utf8))
        }
        Foundation.exit(1)
    }

    func emit<T: Encodable>(_ value: T, text: () -> String) {
        print(json ? jsonText(value) : text())
    }
}

func jsonText<T: Encodable>(_ value: T) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
    return (try? String(decoding: encoder.encode(value), as: UTF8.self)) ?? "{}"
}
