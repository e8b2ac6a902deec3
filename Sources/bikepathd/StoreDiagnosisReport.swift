import BikePathStore
import Foundation

/// The store's part of `bikepathd diagnose`: disk budget and disk-full history, drafts
/// waiting for the rider, and the sync outbox with every quarantined record and why.
struct StoreDiagnosisReport: Codable {
    var path: String
    var error: String?
    var store: StoreDiagnostics?
    var sync: SyncDiagnosis?

    /// Reads the store at `path`; a missing file or an unreadable store is reported, not thrown.
    static func read(path: String) -> StoreDiagnosisReport {
        guard FileManager.default.fileExists(atPath: path) else {
            return StoreDiagnosisReport(path: path, error: "no store at \(path) (the daemon has not run, or --db points elsewhere)")
        }
        do {
            let store = try Store.open(path: path)
            return StoreDiagnosisReport(path: path, store: try store.diagnostics(), sync: try store.syncDiagnosis(logLines: 5))
        } catch {
            return StoreDiagnosisReport(path: path, error: "\(error)")
        }
    }

    /// One line per problem, each with what to try.
    var problems: [String] {
        var lines: [String] = []
        if let error { lines.append("store: \(error) — check --db / store.path and the directory's permissions") }
        if let s = store {
            if s.diskFullLostOutputs > 0 {
                lines.append("store: the disk was full when bikepathd stopped: \(s.diskFullLostOutputs) outputs were lost, \(s.diskFullLostSOS) SOS and \(s.diskFullLostEvents) obstacles among them — free space on the SD card or lower store.budget_mb")
            }
            if s.diskFullFailedCommits > 0 {
                lines.append("store: the disk was full (\(s.diskFullFailedCommits) commits failed, \(s.diskFullDroppedPoints) track points dropped\(s.diskFullLostOutputs == 0 ? ", events kept" : "")) — free space on the SD card or lower store.budget_mb")
            }
            if s.usedBytes > s.budgetBytes {
                lines.append("store: \(mb(s.usedBytes)) used, over the \(mb(s.budgetBytes)) budget — sync and confirm or reject drafts so retention can free space")
            }
        }
        for q in sync?.quarantined ?? [] {
            lines.append("sync: \(q.kind) \(q.id) quarantined after \(q.attempts) attempts: \(q.reason) — it will not be retried; fix the cause, then re-queue or reject it")
        }
        return lines
    }

    var text: String {
        var out = ["store \(path)"]
        if let s = store {
            out.append("  used \(mb(s.usedBytes)) of \(mb(s.budgetBytes)); open trip: \(s.openTrip ?? "none"); drafts waiting for the rider: \(s.pendingDrafts)")
            out.append("  outbox: \(s.outboxPending) pending, \(s.outboxQuarantined) quarantined")
        }
        if let last = sync?.recentLog.first {
            out.append("  last sync: \(last.outcome)\(last.detail.map { " (\($0))" } ?? "")")
        }
        let problems = problems
        out.append(contentsOf: problems.isEmpty ? ["  no store problems"] : problems.map { "  ! " + $0 })
        return out.joined(separator: "\n")
    }
}

private func mb(_ bytes: Int64) -> String { String(format: "%.1f MB", Double(bytes) / 1_048_576) }
