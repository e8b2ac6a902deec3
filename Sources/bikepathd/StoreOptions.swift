import ArgumentParser
import BikePathAPI
import BikePathCLI
import BikePathDaemon
import BikePathStore
import Foundation

/// `--db PATH`, `--config FILE` and `--json`, shared by every store subcommand.
struct StoreOptions: ParsableArguments {
    @Option(
        name: .customLong(ConfigurationKey.flag(\.store.path)),
        help: "Path of the store database (default: $BIKEPATHD_DB, else \(ConfigurationKey.path(\.store.path)) of the configuration file).")
    var databasePath: String?
    /// `run`'s old spelling of `--db`, accepted by every command that takes `--db`.
    @Option(name: .customLong("store"), help: .hidden) var storeAlias: String?

    @Option(
        help: ArgumentHelp(
            "Configuration file for the defaults (default: \(DaemonConfiguration.defaultPath), when present).", valueName: "file"))
    var config: String?

    @Flag(help: "Print machine-readable JSON.")
    var json = false

    var path: String { databasePath ?? storeAlias ?? Self.defaultPath(configuration: fileConfiguration) }

    /// The configuration file, read like `run` reads it; a bad file ends the command (exit 78).
    var fileConfiguration: DaemonConfiguration { configurationFile(config) }

    /// The daemon's own store, so that the CLI on a device finds the running store.
    static func defaultPath(configuration: DaemonConfiguration) -> String {
        environmentPath ?? configuration.store.path
    }

    /// `$BIKEPATHD_DB` when set and not empty: the store of every command, `run` included
    /// (docs/storage.md), below `--db` and above the file's `store.path`.
    static var environmentPath: String? {
        ProcessInfo.processInfo.environment["BIKEPATHD_DB"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Opens an existing, healthy store for reading; a missing or damaged file is
    /// named and the command ends with exit code 1, the file left as it was.
    func openForReading() throws -> Store {
        try run { try Store.open(path: path, configuration: fileConfiguration.storeConfiguration, mode: .readOnly) }
    }

    /// Opens an existing, healthy store for an edit (confirm, reject, consent).
    /// Only the daemon creates a store or moves a damaged one aside.
    func open() throws -> Store {
        try run { try Store.open(path: path, configuration: fileConfiguration.storeConfiguration, mode: .existing) }
    }

    /// Runs `body`; a `StoreError` is printed (as JSON with --json) and ends the command with exit code 1.
    func run<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            fail(error.description)
        } catch let error as ValidationError {
            throw error
        } catch let error as any CommandArgumentError {
            throw ValidationError(error.description)
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
    do { return try JSONText.document(value) } catch { jsonFailed(error) }
}

/// `diagnose --json`: the sensors' and store's own types, their keys written snake_case, with `schema`.
func snakeCaseJSONText<T: Encodable>(_ value: T) -> String {
    do { return try JSONText.snakeCaseDocument(JSONText.Versioned(value)) } catch { jsonFailed(error) }
}

/// A non-finite number (never expected in a report): say so rather than print `{}`.
private func jsonFailed(_ error: any Error) -> Never {
    standardError("error: the JSON output cannot be written: \(error)\n")
    Foundation.exit(1)
}
