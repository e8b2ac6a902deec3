import BikePathStore

extension StoreDiagnostics {
    /// One line per problem, each with what to try: the same list for `status` and `diagnose`.
    /// Worded here, beside the configuration's keys it names (the store does not see them).
    public var problems: [String] {
        let budget = ConfigurationKey.path(\.store.budgetMB)
        var lines: [String] = []
        if let movedAsideTo {
            lines.append(
                "store: the database was unusable (\(movedAsideReason ?? "damaged")) and was moved to \(movedAsideTo); this store started empty — the old file is kept for recovery"
            )
        }
        if withheldSOS > 0 {
            lines.append(
                "sync: \(withheldSOS) SOS message(s) withheld because SOS sharing is off — they stay on this device while it is off; `bikepathd sync consent sos on` sends them"
            )
        }
        if retentionFailures > 0 {
            lines.append(
                "store: retention failed \(retentionFailures) time(s)\(lastRetentionError.map { " (last: \($0))" } ?? "") — the store may outgrow its budget; check the disk and the database"
            )
        }
        if diskFullLostOutputs > 0 {
            lines.append(
                "store: the disk was full when bikepathd stopped: \(diskFullLostOutputs) outputs were lost, \(diskFullLostSOS) SOS and \(diskFullLostEvents) obstacles among them — free space on the SD card or lower \(budget)"
            )
        }
        if diskFullFailedCommits > 0 {
            lines.append(
                "store: the disk was full (\(diskFullFailedCommits) commits failed, \(diskFullDroppedPoints) track points dropped\(diskFullLostOutputs == 0 ? ", events kept" : "")) — free space on the SD card or lower \(budget)"
            )
        }
        if usedBytes > budgetBytes {
            lines.append(
                "store: \(megabytes(usedBytes)) used, over the \(megabytes(budgetBytes)) budget — sync and confirm or reject drafts so retention can free space"
            )
        }
        return lines
    }
}

extension StoreError {
    /// The error as a command or the daemon says it: a store that is missing or is no file
    /// names the flag and the key that set its path (the store does not see them).
    public var sentence: String {
        let flag = "--" + ConfigurationKey.flag(\.store.path), key = ConfigurationKey.path(\.store.path)
        return switch self {
        case .noSuchStore: "\(description) — check \(flag) (or \(key) in the configuration file)"
        case .notARegularFile: "\(description) — check \(flag) / \(key)"
        default: description
        }
    }
}
