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
    /// The file's configuration with the flags on top. Bad flag values are
    /// reported like file problems, with the flag as the "file".
    public func merging(_ o: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        var c = self
        var problems: [ConfigurationProblem] = []
        func set<T>(_ value: T?, _ flag: String, _ key: String, _ check: (T) -> String?, _ apply: (T) -> Void) {
            guard let value else { return }
            if let reason = check(value) {
                problems.append(ConfigurationProblem(file: "--\(flag)", line: nil, key: key, reason: reason))
            } else {
                apply(value)
            }
        }
        set(o.gnssHost, "gpsd-host", "gnss.host", Checks.nonEmpty) { c.gnss.host = $0 }
        set(o.gnssPort, "gpsd-port", "gnss.port", { (1...65535).contains($0) ? nil : "\($0) is out of range 1...65535" }) {
            c.gnss.port = $0
        }
        set(o.imuURI, "iio-uri", "imu.uri", Checks.iioURI) { c.imu.uri = $0 }
        set(o.imuDevice, "iio-device", "imu.device", { _ in nil }) { c.imu.device = $0 }
        set(o.imuRateHz, "imu-rate", "imu.rate_hz", { (1...4000).contains($0) ? nil : "\($0) is out of range 1...4000" }) {
            c.imu.rateHz = $0
        }
        // Paths typed on the command line are relative to the working directory, as with any Unix tool.
        set(o.storePath.map(CommandLinePath.resolve), "db", "store.path", Checks.absolutePath) { c.store.path = $0 }
        set(o.hubURL, "hub", "sync.hub_url", Checks.hubURL) { c.sync.hubURL = $0 }
        set(o.hubTokenFile, "token-file", "sync.token_file", Checks.nonEmpty) { c.sync.tokenFile = $0 }
        set(o.hubCAFile, "ca-file", "sync.ca_file", Checks.nonEmpty) { c.sync.caFile = $0 }
        set(o.logLevel, "log-level", "log.level", { _ in nil }) { c.log.level = $0 }
        set(o.statusSocket.map(CommandLinePath.resolve), "status-socket", "status.socket", Checks.socketPath) {
            c.status.socket = $0
        }
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
        return c
    }
}
