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

    var path: String { databasePath ?? storeAlias ?? fileConfiguration.commandStorePath }

    /// The configuration file, read like `run` reads it; a bad file ends the command (exit 78).
    var fileConfiguration: DaemonConfiguration { configurationFile(config) }

    /// Opens an existing, healthy store for reading; a missing or damaged file is
    /// named and the command ends with exit code 1, the file left as it was.
    func openForReading() async throws -> Store {
        try await run { try Store.open(path: path, configuration: fileConfiguration.storeConfiguration, mode: .readOnly) }
    }

    /// Opens an existing, healthy store for an edit (confirm, reject, consent).
    /// Only the daemon creates a store or moves a damaged one aside.
    func open() async throws -> Store {
        try await run { try Store.open(path: path, configuration: fileConfiguration.storeConfiguration, mode: .existing) }
    }

    /// Runs `body`; a `StoreError` is printed (as JSON with --json) and ends the command with exit code 1.
    func run<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as StoreError {
            fail(error.sentence)
        } catch let error as ValidationError {
            throw error
        } catch let error as any CommandArgumentError {
            throw ValidationError(error.description)
        } catch {
            fail("\(error)")
        }
    }
}

extension StoreOptions: CommandPrinter {}
