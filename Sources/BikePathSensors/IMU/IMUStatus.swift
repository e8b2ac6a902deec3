/// One IIO device the source found and what it reads from it.
public struct IMUDeviceInfo: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    /// Scan elements in use, e.g. ["accel_x", …, "timestamp"].
    public var channels: [String]
    /// Scan elements ignored: unknown type, unused type, or an unsupported format.
    public var ignoredChannels: [String]
    public var timestampClock: String?

    /// Creates a device description from its fields.
    public init(id: String, name: String, channels: [String], ignoredChannels: [String] = [], timestampClock: String? = nil) {
        self.id = id
        self.name = name
        self.channels = channels
        self.ignoredChannels = ignoredChannels
        self.timestampClock = timestampClock
    }
}

/// The IMU source's connection state and counters; copy out with `IIOSource.status`.
public struct IMUStatus: Sendable, Equatable, Codable {
    public var uri: String
    public var connected = false
    public var devices: [IMUDeviceInfo] = []
    public var requestedRateHz: Double
    /// What the device reports after the rate was set.
    public var configuredRateHz: Double?
    /// From sample timestamps, over windows of at least 1 s.
    public var measuredRateHz: Double?
    public var bufferSamples = 0

    public var samples = 0
    public var buffers = 0
    /// Places where consecutive samples are over 1.5 periods apart, and the samples missing there.
    public var gaps = 0
    public var missingSamples = 0
    /// Batches the consumer did not take in time (stream buffer full), and their samples.
    public var overruns = 0
    public var droppedSamples = 0
    /// Refills that returned less than a full buffer.
    public var shortReads = 0
    /// Refills that timed out (no data within the libiio timeout).
    public var timeouts = 0
    /// Refills or buffer creations that failed otherwise (device gone, connection lost).
    public var readErrors = 0
    public var connects = 0
    public var connectFailures = 0
    /// Scan elements of a type libiio does not know.
    public var unknownChannels = 0
    /// Scan elements whose layout this source cannot decode.
    public var unsupportedFormats = 0
    /// Times the timestamp mapping had to re-anchor (device clock jumped).
    public var timestampReanchors = 0
    public var lastError: String?

    /// Creates the status of an IIO source not yet started; `requestedRateHz` in Hz.
    public init(uri: String, requestedRateHz: Double) {
        self.uri = uri
        self.requestedRateHz = requestedRateHz
    }
}

extension IMUStatus: ConnectionCounters {}
