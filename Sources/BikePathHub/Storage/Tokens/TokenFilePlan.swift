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

/// One token would stand for two devices: a token names exactly one device (the
/// database's `UNIQUE` on the token's hash says so too, but as "SQLite error 19"). Found
/// before anything is written; nothing is changed.
public struct TokenInUse: Error, Equatable, CustomStringConvertible {
    /// The device that was to get the token, and the line of the tokens file that says so (0: `token add`).
    public let device: String
    public let line: Int
    /// The device that holds (or, after the file, would hold) the same token.
    public let holder: String
    /// Why the holder keeps it: "revoked" (a revoked device keeps its token's hash, so the
    /// token stays refused), "managed with `bikepath-hub token`", or "on line N".
    public let holderState: String

    public var description: String {
        "device \(device) is given the token of device \(holder) (\(holderState)): each device needs its own token"
    }

    /// How a stored holder keeps its token, for `bikepath-hub token add`.
    static func state(revoked: Bool, managedBy: String) -> String {
        revoked ? "revoked" : managedBy == TokenManager.command.rawValue ? "managed with `bikepath-hub token`" : "in the tokens file"
    }
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

    /// - Throws: `TokenInUse` when, once applied, two devices would hold one token.
    init(entries: [TokenFileEntry], existing: [DeviceRow]) throws(TokenInUse) {
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
        try Self.checkUnique(changes, entries: entries, existing: existing)
        changes = Self.ordered(changes)
    }

    /// Every token hash the plan writes must end up held by that device alone.
    private static func checkUnique(_ changes: [Change], entries: [TokenFileEntry], existing: [DeviceRow]) throws(TokenInUse) {
        var final = Dictionary(existing.map { ($0.device, $0.tokenSHA256) }, uniquingKeysWith: { a, _ in a })
        var written: [(device: String, sha: String)] = []
        for change in changes {
            switch change {
            case .insert(let d, let sha, _), .setToken(let d, let sha):
                final[d] = sha
                written.append((d, sha))
            case .revoke: break
            }
        }
        let line = Dictionary(entries.map { ($0.device, $0.line) }, uniquingKeysWith: { a, _ in a })
        let rows = Dictionary(existing.map { ($0.device, $0) }, uniquingKeysWith: { a, _ in a })
        for (device, sha) in written {
            guard let holder = final.filter({ $0.key != device && $0.value == sha }).keys.sorted().first else { continue }
            let state: String
            if let row = rows[holder], row.tokenSHA256 == sha, row.revoked || row.managedBy == .command || line[holder] == nil {
                // Kept as it is: revoked (before, or now by leaving the file), or the command's.
                state = row.managedBy == .command && !row.revoked ? "managed with `bikepath-hub token`" : "revoked"
            } else {
                state = "line \(line[holder] ?? 0)"
            }
            throw TokenInUse(device: device, line: line[device] ?? 0, holder: holder, holderState: state)
        }
    }

    /// Revocations, then token changes, then new devices; tokens that change pass through a
    /// placeholder first, so two devices that swap tokens never hold one at the same moment.
    private static func ordered(_ changes: [Change]) -> [Change] {
        var placeholders: [Change] = [], revokes: [Change] = [], sets: [Change] = [], inserts: [Change] = []
        for change in changes {
            switch change {
            case .revoke: revokes.append(change)
            case .setToken(let d, _):
                // Not a hash (64 hex digits), so it matches no token; unique because device ids are.
                placeholders.append(.setToken(device: d, tokenSHA256: "replacing:\(d)"))
                sets.append(change)
            case .insert: inserts.append(change)
            }
        }
        return placeholders + revokes + sets + inserts
    }
}
