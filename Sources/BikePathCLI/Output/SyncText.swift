import BikePathCore
import BikePathDaemon
import BikePathStore
import BikePathSync
import Foundation

/// `sync status`: the rider's consent beside the outbox (its JSON: `SyncStatusJSON`).
public struct SyncStatusReport: Sendable {
    public var consent: Consent
    public var sync: SyncDiagnosis

    public init(consent: Consent, sync: SyncDiagnosis) {
        self.consent = consent
        self.sync = sync
    }
}

/// The text forms of `bikepathd sync`'s output (docs/sync.md).
public enum SyncText {
    /// One pass of `sync run`: `sync: drained; sent 3, quarantined 0; next try in 2.0 s`.
    public static func pass(_ result: PassResult, next: Double? = nil) -> String {
        var text = "sync: \(result)"
        if case .failed(_, let retry?) = result { text += "; hub asks to retry in \(retry) s" }
        if let next, next > 0 { text += String(format: "; next try in %.1f s", next) }
        return text
    }

    /// `sync run --once`'s account of the bytes on the wire.
    public static func wire(_ w: WireCounters, seconds: Double) -> String {
        "sync: wire: requests \(w.requests), request bodies \(w.requestBodyBytes) B gzip (\(w.uncompressedBodyBytes) B JSON), "
            + "request headers \(w.requestHeaderBytes) B, response bodies \(w.responseBodyBytes) B, "
            + "response headers \(w.responseHeaderBytes) B, " + String(format: "%.3f s", seconds)
    }

    /// `sync consent`: one stream per line.
    public static func consent(_ c: Consent) -> String {
        "trips and drafts: \(c.tripsAndDrafts ? "on" : "off")\nsos: \(c.sos ? "on" : "off")\nlive position: \(c.livePosition ? "on" : "off")"
    }

    /// `sync privacy`: the trim, then one zone per line.
    public static func privacy(_ p: PrivacySettings) -> String {
        (["trim: \(p.trim.seconds) s and \(p.trim.meters) m at each end"]
            + p.zones.map { "zone \($0.name): \($0.center.latitude), \($0.center.longitude), \($0.radiusMeters) m" })
            .joined(separator: "\n")
    }

    /// `sync status`: consent, the outbox by state, what was quarantined and why, the log.
    public static func status(_ report: SyncStatusReport) -> String {
        let d = report.sync
        func counts(_ m: [String: Int]) -> String {
            m.isEmpty ? "none" : m.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        var out = [
            "consent (`bikepathd sync consent`): " + consent(report.consent).replacingOccurrences(of: "\n", with: ", "),
            "outbox: \(d.summary)",
            "\(PublishingState.pending.word): \(counts(d.pending))",
            "\(PublishingState.withheld.word) (consent off): \(counts(d.withheld))",
            "\(PublishingState.sent.word): \(counts(d.sent))",
            "\(PublishingState.quarantined.word): \(d.quarantined.count)",
        ]
        out += d.quarantined.map { "  \($0.kind) \($0.id): \($0.reason)" }
        out.append("sync log (newest first):")
        out += d.recentLog.map { "  \($0.outcome) \($0.kind ?? "-") \($0.id ?? "-") \($0.detail ?? "")" }
        return out.joined(separator: "\n")
    }
}
