import ArgumentParser
import BikePathSensors

/// Where the sensors are: shared by `diagnose` and the benchmark drain.
struct SensorOptions: ParsableArguments {
    @Option(help: "gpsd host.") var gpsdHost = "localhost"
    @Option(help: "gpsd port.") var gpsdPort = 2947
    @Option(name: .customLong("iio-uri"), help: "libiio context URI: local:, ip:HOST[:PORT].") var iioURI = "local:"
    @Option(name: .customLong("iio-device"), help: "IIO device with the accelerometer (name or id); default: found by its channels.")
    var iioDevice: String?
    @Option(help: "IMU sampling frequency, Hz.") var imuRate: Double = 100

    var gpsd: GPSDConfiguration { GPSDConfiguration(host: gpsdHost, port: gpsdPort) }
    var iio: IIOConfiguration { IIOConfiguration(uri: iioURI, deviceName: iioDevice, samplingFrequency: imuRate) }
}
