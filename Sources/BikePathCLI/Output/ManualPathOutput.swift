import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathStore
import Foundation

/// `path list`'s and `path delete`'s text and JSON (docs/cli.md, docs/json.md): each path with
/// where it stands and, when the hub answered, what it said.
public enum ManualPathOutput {
    public struct List: Encodable {
        public var schema = JSONSchema.version
        public var paths: [Path]
    }

    public struct Path: Encodable {
        public var id: String
        /// `queued`, `sent` or `refused` (`ManualPathState`).
        public var state: String
        public var streets: [String]
        public var start: Position
        public var end: Position
        /// The API's value: `optimal`, `medium`, `sufficient`, `requiresMaintenance`.
        public var status: String
        public var created_utc: String?
        public var attempts: Int
        /// Why the last try is retried (queued only).
        public var last_failure: String?
        /// The hub's length of the path it made (sent only).
        public var length_m: Double?
        /// The hub's code and sentence (refused only).
        public var refusal: Refusal?
    }

    public struct Position: Encodable {
        public var lat: Double
        public var lon: Double
    }

    public struct Refusal: Encodable {
        public var code: String
        public var message: String
    }

    public struct Deleted: Encodable {
        public var schema = JSONSchema.version
        public var id: String
        public var deleted = true
        /// The state it was in: `queued` or `refused` (a sent path cannot be deleted).
        public var state: String

        public init(id: String, state: String) { (self.id, self.state) = (id, state) }
    }

    public static func list(_ paths: [ManualPathRecord]) -> List {
        List(
            paths: paths.map { p in
                Path(
                    id: p.id, state: p.state.rawValue, streets: p.path.streets,
                    start: Position(lat: p.path.start.lat, lon: p.path.start.lon),
                    end: Position(lat: p.path.end.lat, lon: p.path.end.lon), status: p.path.status,
                    created_utc: p.createdUTCNanoseconds.map { ChainOutputJSON.iso8601(UTCTime(nanosecondsSince1970: $0)) },
                    attempts: p.attempts, last_failure: p.lastFailure, length_m: p.lengthMeters,
                    refusal: p.refusalCode.map { Refusal(code: $0, message: p.refusalMessage ?? "") })
            })
    }

    /// `path list`: two lines a path, oldest first: what was entered, then what became of it.
    public static func text(_ paths: [ManualPathRecord]) -> String {
        guard !paths.isEmpty else { return "no paths (`bikepathd path add` enters one)" }
        return paths.map { p in
            let status = PathStatus(rawValue: p.path.status)?.word ?? p.path.status
            return "\(p.id)  \(ReviewFormat.dateAndTime(p.createdUTCNanoseconds))  \(p.state.word)  "
                + "\(p.path.streets.joined(separator: " → "))  status: \(status)\n    \(outcome(p))"
        }.joined(separator: "\n")
    }

    /// What became of a path, in the rider's words.
    static func outcome(_ p: ManualPathRecord) -> String {
        switch p.state {
        case .sent:
            return "the hub made it: \(p.lengthMeters.map { String(format: "%.0f m", $0) } ?? "length not given"), counted as your rating"
        case .refused:
            return "the hub refused it (\(p.refusalCode ?? "?")): \(p.refusalMessage ?? "")"
                + " — not retried; `bikepathd path delete \(p.id)` removes it, `bikepathd path add` enters a corrected one"
        case .queued:
            guard let failure = p.lastFailure else { return "not sent yet: sync sends it at its next pass" }
            return "tried \(p.attempts) time(s), retried with sync's backoff; last: \(failure)"
        }
    }

    /// `path add`'s line for path `id`: queued, and when it leaves (`departure`, one rule with
    /// `drafts confirm`).
    public static func added(
        id: String, fate: ConsentPolicy.ConfirmedDraftSync, now: ConsentPolicy.ConfirmedDraftSync.SyncNow?
    ) -> String {
        let d = fate.departure(now: now)
        if d.woken { return "path \(id) queued; the daemon is sending it to the hub now (`bikepathd path list` shows its answer)" }
        if case .heldBack(let hold) = fate { return "path \(id) queued; it stays on this device: \(hold)" }
        return "path \(id) queued and \(ManualPathState.queued.word); \(d.why ?? ""), so it leaves \(d.leaves ?? "")"
    }

    /// `path delete`'s line.
    public static func deleted(_ p: ManualPathRecord) -> String {
        p.state == .refused
            ? "path \(p.id) deleted (the hub had refused it; nothing of it is on the hub)"
            : "path \(p.id) deleted before it was sent: nothing of it left this device"
    }
}
