import ArgumentParser
import BikePathDaemon
import BikePathSensors

/// Where the sensors are: shared by `diagnose`, `record` and the benchmark drain.
/// Each flag defaults to the configuration file's key (`--config`, else the default file).
struct SensorOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Configuration file for the defaults (default: \(DaemonConfiguration.defaultPath), when present).", valueName: "file"))
    var config: String?
    @Option(help: "gpsd host (default: gnss.host).") var gpsdHost: String?
    @Option(help: "gpsd port (default: gnss.port).") var gpsdPort: Int?
    @Option(name: .customLong("iio-uri"), help: "libiio context URI: local:, ip:HOST[:PORT] (default: imu.uri).") var iioURI: String?
    @Option(name: .customLong("iio-device"), help: "IIO device with the accelerometer, name or id (default: imu.device, else found by its channels).")
    var iioDevice: String?
    @Option(help: "IMU sampling frequency, Hz (default: imu.rate_hz).") var imuRate: Double?

    var fileConfiguration: DaemonConfiguration { configurationFile(config) }

    var gpsd: GPSDConfiguration {
        let file = fileConfiguration.gnss
        return GPSDConfiguration(host: gpsdHost ?? file.host, port: gpsdPort ?? file.port)
    }

    var iio: IIOConfiguration {
        let file = fileConfiguration.imu
        return IIOConfiguration(uri: iioURI ?? file.uri, deviceName: iioDevice ?? (file.device.isEmpty ? nil : file.device),
                                samplingFrequency: imuRate ?? file.rateHz)
    }
}
