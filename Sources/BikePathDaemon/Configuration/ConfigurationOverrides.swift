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
    /// The file's configuration with the flags on top. Each flag is the one its key declares
    /// (`ConfigurationKey.all`: name, range or check, declared once for the file and the flags);
    /// bad values are reported like file problems, with the flag as the "file".
    public func merging(_ o: ConfigurationOverrides) throws(ConfigurationError) -> DaemonConfiguration {
        var c = self
        var problems: [ConfigurationProblem] = []
        func set(_ field: PartialKeyPath<DaemonConfiguration>, _ given: ConfigurationValue?) {
            guard let given else { return }
            let key = ConfigurationKey[field]
            guard let flag = key.flag else { preconditionFailure("\(key.path) has no flag") }
            var value = given
            if flag.isPath, case .string(let typed) = given { value = .string(CommandLinePath.resolve(typed)) }
            if let reason = key.check(value) {
                problems.append(ConfigurationProblem(file: "--\(flag.name)", line: nil, key: key.path, reason: reason))
            } else {
                _ = key.assign(&c, value)
            }
        }
        set(\.gnss.host, o.gnssHost.map(ConfigurationValue.string))
        set(\.gnss.port, o.gnssPort.map(ConfigurationValue.int))
        set(\.imu.uri, o.imuURI.map(ConfigurationValue.string))
        set(\.imu.device, o.imuDevice.map(ConfigurationValue.string))
        set(\.imu.rateHz, o.imuRateHz.map(ConfigurationValue.double))
        set(\.store.path, o.storePath.map(ConfigurationValue.string))
        set(\.sync.hubURL, o.hubURL.map(ConfigurationValue.string))
        set(\.sync.tokenFile, o.hubTokenFile.map(ConfigurationValue.string))
        set(\.sync.caFile, o.hubCAFile.map(ConfigurationValue.string))
        set(\.log.level, o.logLevel.map { .string($0.rawValue) })
        set(\.status.socket, o.statusSocket.map(ConfigurationValue.string))
        if !problems.isEmpty { throw ConfigurationError(problems: problems) }
        return c
    }
}
