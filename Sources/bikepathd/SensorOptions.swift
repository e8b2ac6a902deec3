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
    @Option(help: "gpsd host (default: gnss.host).") var gpsdHost: String?
    @Option(help: "gpsd port (default: gnss.port).") var gpsdPort: Int?
    @Option(name: .customLong("iio-uri"), help: "libiio context URI: local:, ip:HOST[:PORT] (default: imu.uri).") var iioURI: String?
    @Option(
        name: .customLong("iio-device"),
        help: "IIO device with the accelerometer, name or id (default: imu.device, else found by its channels).")
    var iioDevice: String?
    @Option(help: "IMU sampling frequency, Hz (default: imu.rate_hz).") var imuRate: Double?

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
