/// What applying the tokens file changed, for the hub's log (device ids only, never tokens).
public struct TokenFileReport: Equatable, Sendable {
    public var added: [String] = []
    public var replaced: [String] = []
    public var revoked: [String] = []
    /// Devices that left the file: revoked, since removing a line must take access away.
    public var revokedAbsent: [String] = []
    /// Revoked before and listed in the file: they stay revoked.
    public var keptRevoked: [String] = []
    /// Managed with `bikepath-hub token`: their line in the file changes nothing.
    public var ignoredCommandManaged: [String] = []
    /// Managed with `bikepath-hub token`, absent from the file, still allowed.
    public var commandManaged: [String] = []
}

/// A device row as the tokens file's rules see it.
struct DeviceRow: Sendable {
    var device: String
    var tokenSHA256: String
    var revoked: Bool
    var managedBy: TokenManager
}

/// The rules of the tokens file (docs/sync.md, "Device tokens"), written once for every
/// store: the database is the authority and a revocation is permanent for that device
/// until `bikepath-hub token add` issues it a new token; the file can add devices, change
/// the tokens of devices it manages, and revoke, but never restore access; a device it
/// manages that leaves the file is revoked. Pure: the store applies `changes` in the
/// transaction it read `existing` in.
struct TokenFilePlan {
    enum Change: Equatable {
        case insert(device: String, tokenSHA256: String, revoked: Bool)
        case revoke(device: String)
        case setToken(device: String, tokenSHA256: String)
    }

    var report = TokenFileReport()
    var changes: [Change] = []

    init(entries: [TokenFileEntry], existing: [DeviceRow]) {
        let byDevice = Dictionary(existing.map { ($0.device, $0) }, uniquingKeysWith: { a, _ in a })
        for e in entries {
            guard let row = byDevice[e.device] else {
                changes.append(.insert(device: e.device, tokenSHA256: e.tokenSHA256, revoked: e.revoked))
                if e.revoked { report.revoked.append(e.device) } else { report.added.append(e.device) }
                continue
            }
            if e.revoked {
                if !row.revoked {
                    changes.append(.revoke(device: e.device))
                    report.revoked.append(e.device)
                }
            } else if row.revoked {
                report.keptRevoked.append(e.device)
            } else if row.managedBy == .command {
                if row.tokenSHA256 != e.tokenSHA256 { report.ignoredCommandManaged.append(e.device) }
            } else if row.tokenSHA256 != e.tokenSHA256 {
                changes.append(.setToken(device: e.device, tokenSHA256: e.tokenSHA256))
                report.replaced.append(e.device)
            }
        }
        let listed = Set(entries.map(\.device))
        for row in existing.sorted(by: { $0.device < $1.device }) where !row.revoked && !listed.contains(row.device) {
            if row.managedBy == .command {
                report.commandManaged.append(row.device)
            } else {
                changes.append(.revoke(device: row.device))
                report.revokedAbsent.append(row.device)
            }
        }
    }
}
