import ArgumentParser
import Foundation
import BikePathDaemon

extension LogLevelName: ExpressibleByArgument {}

/// `--config` and the flags that override the file, key by key
/// (docs/configuration.md). Shared by `run` and `config show`.
struct DaemonOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Configuration file.", valueName: "file"))
    var config: String?
    @Option(help: "Overrides gnss.host.") var gpsdHost: String?
    @Option(help: "Overrides gnss.port.") var gpsdPort: Int?
    @Option(name: .customLong("iio-uri"), help: "Overrides imu.uri.") var iioURI: String?
    @Option(name: .customLong("iio-device"), help: "Overrides imu.device.") var iioDevice: String?
    @Option(help: "Overrides imu.rate_hz.") var imuRate: Double?
    @Option(help: ArgumentHelp("Overrides store.path.", valueName: "path")) var store: String?
    @Option(name: .customLong("hub-url"), help: "Overrides sync.hub_url.") var hubURL: String?
    @Option(help: "Overrides log.level: trace, debug, info, notice, warning, error, critical.") var logLevel: LogLevelName?
    @Option(help: ArgumentHelp("Overrides status.socket.", valueName: "path")) var statusSocket: String?

    var overrides: ConfigurationOverrides {
        ConfigurationOverrides(gnssHost: gpsdHost, gnssPort: gpsdPort, imuURI: iioURI, imuDevice: iioDevice,
                               imuRateHz: imuRate, storePath: store, hubURL: hubURL, logLevel: logLevel,
                               statusSocket: statusSocket)
    }

    /// The file (the default path may be missing: defaults then) with the flags
    /// on top. Any problem is an error naming file, line, key and reason: the
    /// daemon refuses to start rather than guess.
    func effectiveConfiguration() throws(ConfigurationError) -> DaemonConfiguration {
        let file = try ConfigurationLoader.load(path: config ?? DaemonConfiguration.defaultPath, missingIsDefault: config == nil)
        return try file.merging(overrides)
    }
}

/// Prints configuration problems to stderr, one per line, and fails the command.
func failWithConfigurationProblems(_ error: ConfigurationError) -> ExitCode {
    writeStandardError(error.description + "\n")
    return ExitCode(78)  // EX_CONFIG: systemd shows "status=78/CONFIG"
}

func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress!, $0.count) }
}
