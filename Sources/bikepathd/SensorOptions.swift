import ArgumentParser
import BikePathCLI
import BikePathDaemon
import BikePathSensors
import Foundation

/// `--config` and where the sensors are: shared by `diagnose`, `record` and (in
/// `DaemonOptions`) `run` and `config show`. Each flag overrides the configuration
/// file's key (`--config`, else the default file) by `ConfigurationOverrides`' rule;
/// a bad value exits 78.
struct SensorOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Configuration file for the defaults (default: \(DaemonConfiguration.defaultPath), when present).", valueName: "file"))
    var config: String?
    @Option(name: .customLong(ConfigurationKey.flag(\.gnss.host)), help: "gpsd host (default: \(ConfigurationKey.path(\.gnss.host))).")
    var gpsdHost: String?
    @Option(name: .customLong(ConfigurationKey.flag(\.gnss.port)), help: "gpsd port (default: \(ConfigurationKey.path(\.gnss.port))).")
    var gpsdPort: Int?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.imu.uri)),
        help: "libiio context URI: local:, ip:HOST[:PORT] (default: \(ConfigurationKey.path(\.imu.uri))).")
    var iioURI: String?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.imu.device)),
        help: "IIO device with the accelerometer, name or id (default: \(ConfigurationKey.path(\.imu.device)), else found by its channels)."
    )
    var iioDevice: String?
    @Option(
        name: .customLong(ConfigurationKey.flag(\.imu.rateHz)),
        help: "IMU sampling frequency, Hz (default: \(ConfigurationKey.path(\.imu.rateHz))).")
    var imuRate: Double?

    var fileConfiguration: DaemonConfiguration { configurationFile(config) }

    var overrides: ConfigurationOverrides {
        ConfigurationOverrides(gnssHost: gpsdHost, gnssPort: gpsdPort, imuURI: iioURI, imuDevice: iioDevice, imuRateHz: imuRate)
    }

    /// The file with these flags on top.
    var effective: DaemonConfiguration {
        do { return try fileConfiguration.merging(overrides) } catch { Foundation.exit(failWithConfigurationProblems(error).rawValue) }
    }

    var gpsd: GPSDConfiguration { effective.gpsdConfiguration }
    var iio: IIOConfiguration { effective.iioConfiguration }
}
