/// What command-line flags set. Every field is optional: only what was given
/// replaces the file's value. Checked with the same rules as the file.
public struct ConfigurationOverrides: Sendable, Equatable {
    public var gnssHost: String?
    public var gnssPort: Int?
    public var imuURI: String?
    public var imuDevice: String?
    public var imuRateHz: Double?
    public var storePath: String?
    public var hubURL: String?
    /// `--token-file` and `--ca-file` of the commands that talk to the hub: a path as the
    /// rider typed it (relative to the working directory is fine on a command line).
    public var hubTokenFile: String?
    public var hubCAFile: String?
    public var logLevel: LogLevelName?
    public var statusSocket: String?

    /// Creates overrides; a nil field leaves the file's value.
    public init(
        gnssHost: String? = nil, gnssPort: Int? = nil, imuURI: String? = nil, imuDevice: String? = nil,
        imuRateHz: Double? = nil, storePath: String? = nil, hubURL: String? = nil,
        hubTokenFile: String? = nil, hubCAFile: String? = nil,
        logLevel: LogLevelName? = nil, statusSocket: String? = nil
    ) {
        self.gnssHost = gnssHost
        self.gnssPort = gnssPort
        self.imuURI = imuURI
        self.imuDevice = imuDevice
        self.imuRateHz = imuRateHz
        self.storePath = storePath
        self.hubURL = hubURL
        self.hubTokenFile = hubTokenFile
        self.hubCAFile = hubCAFile
        self.logLevel = logLevel
        self.statusSocket = statusSocket
    }
}

extension DaemonConfiguration {
    /// The file's configuration with the flags on top. Each flag is checked by its key's own
    /// rule (`ConfigurationKey.all`: range or check, declared once for the file and the flags);
    /// bad values are reported like file problems, with the flag as the "file".
    public func merging(_ o: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        var c = self
        var problems: [ConfigurationProblem] = []
        func set(_ value: ConfigurationValue?, _ flag: String, _ path: String) {
            guard let value else { return }
            let key = ConfigurationKey.named(path)
            if let reason = key.check(value) {
                problems.append(ConfigurationProblem(file: "--\(flag)", line: nil, key: path, reason: reason))
            } else {
                _ = key.assign(&c, value)
            }
        }
        // Paths typed on the command line are relative to the working directory, as with any Unix tool.
        func path(_ typed: String?) -> ConfigurationValue? { typed.map { .string(CommandLinePath.resolve($0)) } }
        set(o.gnssHost.map(ConfigurationValue.string), "gpsd-host", "gnss.host")
        set(o.gnssPort.map(ConfigurationValue.int), "gpsd-port", "gnss.port")
        set(o.imuURI.map(ConfigurationValue.string), "iio-uri", "imu.uri")
        set(o.imuDevice.map(ConfigurationValue.string), "iio-device", "imu.device")
        set(o.imuRateHz.map(ConfigurationValue.double), "imu-rate", "imu.rate_hz")
        set(path(o.storePath), "db", "store.path")
        set(o.hubURL.map(ConfigurationValue.string), "hub", "sync.hub_url")
        set(path(o.hubTokenFile), "token-file", "sync.token_file")
        set(path(o.hubCAFile), "ca-file", "sync.ca_file")
        set(o.logLevel.map { .string($0.rawValue) }, "log-level", "log.level")
        set(path(o.statusSocket), "status-socket", "status.socket")
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
        return c
    }
}
