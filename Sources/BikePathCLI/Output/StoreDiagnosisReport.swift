import BikePathDaemon
import BikePathStore
import Foundation

/// The store's part of `bikepathd diagnose`: disk budget and disk-full history, drafts
/// waiting for the rider, and the sync outbox with every quarantined record and why.
public struct StoreDiagnosisReport: Encodable, Sendable {
    public var path: String
    public var error: String?
    public var store: StoreDiagnostics?
    public var sync: SyncDiagnosis?
    /// The detector sensitivity `run` applies, fitted from the rider's answers.
    public var calibration: CalibrationReport?

    /// Crash detection on while SOS sharing is off (`ConsentPolicy.sosStaysOnDevice`).
    public var sosConsent: String?

    private enum JSONKey: String, CodingKey { case path, error, store, sync, calibration, sosConsent = "sos_consent" }

    /// docs/json.md's form: the sync log's times as ISO 8601 (`SyncOutboxJSON`), not nanoseconds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(path, forKey: .path)
        try c.encodeIfPresent(error, forKey: .error)
        try c.encodeIfPresent(store, forKey: .store)
        try c.encodeIfPresent(sync.map(SyncOutboxJSON.init), forKey: .sync)
        try c.encodeIfPresent(calibration, forKey: .calibration)
        try c.encodeIfPresent(sosConsent, forKey: .sosConsent)
    }

    /// Reads the store at `path`; a missing file or an unreadable store is reported, not thrown.
    /// `crashDetection`: the configuration's `crash.enabled`, to report an SOS that would stay on the device.
    public static func read(path: String, crashDetection: Bool = false) async -> StoreDiagnosisReport {
        do {
            let store = try Store.open(path: path, mode: .readOnly)
            let sosConsent = await ConsentPolicy.sosStaysOnDevice(store: store, crashDetection: crashDetection)
            return StoreDiagnosisReport(
                path: path, store: try store.diagnostics(), sync: try store.syncDiagnosis(logLines: 5),
                calibration: try store.calibrationReport(), sosConsent: sosConsent)
        } catch {
            return StoreDiagnosisReport(path: path, error: "\(error)")
        }
    }

    /// One line per problem, each with what to try.
    public var problems: [String] {
        var lines: [String] = []
        if let error {
            let key = ConfigurationKey.path(\.store.path), flag = ConfigurationKey.flag(\.store.path)
            lines.append("store: \(error) — check --\(flag) / \(key) and the directory's permissions")
        }
        lines += store?.problems ?? []
        if let sosConsent { lines.append(sosConsent) }
        for q in sync?.quarantined ?? [] {
            // A named path the hub refused is never sent again: the rider enters a corrected one.
            let remedy =
                q.kind == ManualPathRecord.syncKind
                ? "`bikepathd path delete \(q.id)` removes it; enter the path again corrected (`bikepathd path add`)"
                : "fix the cause, then re-queue or reject it"
            lines.append(
                "sync: \(q.kind) \(q.id) quarantined after \(q.attempts) attempts: \(q.reason) — it will not be retried; \(remedy)")
        }
        return lines
    }

    public var text: String {
        var out = ["store \(path)"]
        if let s = store {
            out.append(
                "  used \(megabytes(s.usedBytes)) of \(megabytes(s.budgetBytes)); open trip: \(s.openTrip ?? "none"); drafts waiting for the rider: \(s.pendingDrafts)"
            )
        }
        // The outbox by `PublishingState`, the rule `sync status`, `status` and the page count by
        // (it once said "1 pending" of a record `sync status` called withheld).
        if let sync { out.append("  outbox: \(sync.summary)") }
        if let calibration {
            out += CalibrationText.render(calibration).split(separator: "\n").map { "  " + $0 }
        }
        if let last = sync?.recentLog.first {
            out.append("  last sync: \(last.outcome)\(last.detail.map { " (\($0))" } ?? "")")
        }
        let problems = problems
        out.append(contentsOf: problems.isEmpty ? ["  no store problems"] : problems.map { "  ! " + $0 })
        return out.joined(separator: "\n")
    }
}
