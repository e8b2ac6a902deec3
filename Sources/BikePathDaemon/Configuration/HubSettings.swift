import BikePathSync

extension DaemonConfiguration.Sync {
    /// The hub this configuration names, with its token read from `token_file`: written
    /// once for `run` and every command that talks to the hub (`sync run`), so that the
    /// file's `sync.*` keys mean the same everywhere and a flag only overrides one key.
    /// - Throws: `HubSettingsError.noHub` when `hub_url` is empty (and no `--hub` was
    ///   given); the token file's own error when it cannot be used.
    public func endpoint(requestTimeoutSeconds: Double = HubEndpoint.defaultRequestTimeoutSeconds) throws -> HubEndpoint {
        guard !hubURL.isEmpty else { throw HubSettingsError.noHub }
        let token = try DeviceToken.read(path: tokenFile)
        return HubEndpoint(
            baseURL: hubURL, token: token, caFile: caFile.isEmpty ? nil : caFile,
            requestTimeoutSeconds: requestTimeoutSeconds)
    }
}

/// Why a command that talks to the hub has no hub to talk to.
public enum HubSettingsError: Error, Equatable, CustomStringConvertible {
    case noHub

    public var description: String {
        switch self {
        case .noHub:
            "no hub: give --\(ConfigurationKey.flag(\.sync.hubURL)) URL or set \(ConfigurationKey.path(\.sync.hubURL)) in the configuration file (--config)"
        }
    }
}
