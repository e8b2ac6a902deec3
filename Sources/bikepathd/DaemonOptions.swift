import ArgumentParser
import BikePathCLI
import BikePathDaemon
import Foundation

extension LogLevelName: ExpressibleByArgument {}

/// `--config` and the flags that override the file, key by key
/// (docs/configuration.md). Shared by `run` and `config show`.
struct DaemonOptions: ParsableArguments {
    @OptionGroup var sensors: SensorOptions
    @Option(
        name: .customLong(ConfigurationKey.flag(\.store.path)),
        help: ArgumentHelp(
            "Overrides \(ConfigurationKey.path(\.store.path)) (default: $BIKEPATHD_DB, else \(ConfigurationKey.path(\.store.path))).",
            valueName: "path"))
    var database: String?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.sync.hubURL)),
        help: ArgumentHelp("Overrides \(ConfigurationKey.path(\.sync.hubURL)).", valueName: "url"))
    var hub: String?
    /// Old spellings (`--store`, `--hub-url`), kept working for installed units and scripts.
    @Option(name: .customLong("store"), help: .hidden) var storeAlias: String?
    @Option(name: .customLong("hub-url"), help: .hidden) var hubURLAlias: String?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.log.level)),
        help: "Overrides \(ConfigurationKey.path(\.log.level)): \(LogLevelName.allCases.map(\.rawValue).joined(separator: ", ")).")
    var logLevel: LogLevelName?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.status.socket)),
        help: ArgumentHelp("Overrides \(ConfigurationKey.path(\.status.socket)).", valueName: "path"))
    var statusSocket: String?

    var overrides: ConfigurationOverrides {
        var o = sensors.overrides
        // $BIKEPATHD_DB applies to `run` as to every other command (docs/storage.md).
        o.storePath = database ?? storeAlias ?? DaemonConfiguration.environmentStorePath
        o.hubURL = hub ?? hubURLAlias
        o.logLevel = logLevel
        o.statusSocket = statusSocket
        return o
    }

    /// The file (the default path may be missing: defaults then) with the flags
    /// on top. Any problem is an error naming file, line, key and reason: the
    /// daemon refuses to start rather than guess.
    func effectiveConfiguration() throws(ConfigurationError) -> DaemonConfiguration {
        let file = try ConfigurationLoader.load(flag: sensors.config)
        return try file.merging(overrides)
    }
}

/// The configuration file a command's `--config` names (or the default one), for
/// its defaults; a bad file ends the command with exit code 78 like `run`.
func configurationFile(_ flag: String?) -> DaemonConfiguration {
    do { return try ConfigurationLoader.load(flag: flag) } catch { Foundation.exit(failWithConfigurationProblems(error).rawValue) }
}

/// Prints configuration problems to stderr, one per line, and fails the command.
func failWithConfigurationProblems(_ error: ConfigurationError) -> ExitCode {
    standardErrorLine(error.description)
    return ExitCode(ConfigurationCheck.badFileStatus)
}
