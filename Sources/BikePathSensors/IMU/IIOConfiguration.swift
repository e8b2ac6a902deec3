/// Which IIO context and device(s) to read, and how fast.
public struct IIOConfiguration: Sendable, Equatable {
    /// libiio context URI: `local:` on the device, `ip:HOST[:PORT]` for iiod.
    public var uri: String
    /// Device holding the accelerometer, by name (`bmi160`) or id (`iio:device0`);
    /// nil: the first device with accel x/y/z scan elements.
    public var deviceName: String?
    /// Device holding the gyro when it is a separate one; nil: found automatically.
    public var gyroDeviceName: String?
    public var samplingFrequency: Double
    /// Buffer refills per second: the buffer holds rate / this many samples (libiio drops a
    /// partly filled buffer after its 1 s timeout, so a buffer must fill well within it).
    public var refillsPerSecond: Double
    /// libiio I/O timeout, seconds (at least 1 s and 3 buffer periods are used).
    public var timeout: Double
    /// Timeouts in a row after which the device counts as gone and is reopened.
    public var timeoutsBeforeReconnect: Int
    public var initialBackoff: Double
    public var maximumBackoff: Double

    /// Creates a configuration; the defaults read the local IIO context at 100 Hz, 20 refills a
    /// second, a 1 s timeout, reopen after 3 timeouts, backoff 0.25 s up to 8 s.
    public init(
        uri: String = "local:", deviceName: String? = nil, gyroDeviceName: String? = nil,
        samplingFrequency: Double = 100, refillsPerSecond: Double = 20, timeout: Double = 1,
        timeoutsBeforeReconnect: Int = 3, initialBackoff: Double = 0.25, maximumBackoff: Double = 8
    ) {
        self.uri = uri
        self.deviceName = deviceName
        self.gyroDeviceName = gyroDeviceName
        self.samplingFrequency = samplingFrequency
        self.refillsPerSecond = refillsPerSecond
        self.timeout = timeout
        self.timeoutsBeforeReconnect = timeoutsBeforeReconnect
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
    }

    /// Samples per buffer for a rate.
    public func bufferSamples(rate: Double) -> Int {
        max(1, Int((rate / max(1, refillsPerSecond)).rounded()))
    }
}
