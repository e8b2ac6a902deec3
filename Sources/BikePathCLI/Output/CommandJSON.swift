import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

// The `--json` documents of `run --summary`, `review pair` and `sync consent|status`
// in the schema of docs/json.md (machine-readable: docs/json-schema.json). Each is a
// view: the Swift types they come from keep their own Codable form (the store keeps
// `Consent` in it), and only these keys reach a script.

/// `run --replay … --summary`: the run's counters.
public struct RunSummaryJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var records: Int
    public var outputs: Int
    public var trips_ended: Int
    public var obstacles: Int
    public var track_points: Int
    public var dropped_track_points: Int
    /// Wall-clock seconds the run took.
    public var elapsed_s: Double
    /// Resident set sizes in KiB (getrusage's unit).
    public var rss_start_kib: Int
    public var rss_after_first_hour_kib: Int?
    public var rss_by_hour_kib: [Int]
    public var rss_end_kib: Int
    public var max_rss_kib: Int

    public init(_ s: DaemonLoop.Summary) {
        records = s.records
        outputs = s.outputs
        trips_ended = s.tripsEnded
        obstacles = s.obstacles
        track_points = s.trackPoints
        dropped_track_points = s.droppedTrackPoints
        elapsed_s = s.seconds
        rss_start_kib = s.rssStartKB
        rss_after_first_hour_kib = s.rssAfterFirstHourKB
        rss_by_hour_kib = s.rssByHourKB
        rss_end_kib = s.rssEndKB
        max_rss_kib = s.maxRSSKB
    }
}

/// `review pair --json`: the code, when it stops working, and the page's URLs.
public struct ReviewPairJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var code: String
    public var expires_utc: String
    /// Where the page is served, the addresses a phone opens (`ReviewText.urls`).
    public var urls: [String]

    public init(code: String, expiresUTCNanoseconds: Int64, urls: [String] = []) {
        self.code = code
        self.urls = urls
        expires_utc = ChainOutputJSON.iso8601(UTCTime(nanosecondsSince1970: expiresUTCNanoseconds))
    }
}

/// The rider's consent under the streams' names on the command line (`sync consent trips|sos|live`).
public struct ConsentJSON: Encodable, Sendable {
    public var trips: Bool
    public var sos: Bool
    public var live: Bool

    public init(_ c: Consent) {
        trips = c.tripsAndDrafts
        sos = c.sos
        live = c.livePosition
    }
}

/// `sync consent --json`.
public struct ConsentDocumentJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var consent: ConsentJSON

    public init(_ c: Consent) { consent = ConsentJSON(c) }
}

/// The sync outbox by state (counts per record kind), what was quarantined and why, and
/// the sync log, newest first: in `sync status --json` and `diagnose --json`.
public struct SyncOutboxJSON: Encodable, Sendable {
    public struct Quarantined: Encodable, Sendable {
        public var kind: String
        public var id: String
        public var reason: String
        public var attempts: Int
    }

    public struct LogLine: Encodable, Sendable {
        public var utc: String?
        public var kind: String?
        public var id: String?
        public var outcome: String
        public var detail: String?
    }

    public var pending: [String: Int]
    public var withheld: [String: Int]
    public var sent: [String: Int]
    public var quarantined: [Quarantined]
    public var recent_log: [LogLine]

    public init(_ d: SyncDiagnosis) {
        pending = d.pending
        withheld = d.withheld
        sent = d.sent
        quarantined = d.quarantined.map { Quarantined(kind: $0.kind, id: $0.id, reason: $0.reason, attempts: $0.attempts) }
        recent_log = d.recentLog.map {
            LogLine(
                utc: $0.utcNanoseconds.map { ChainOutputJSON.iso8601(UTCTime(nanosecondsSince1970: $0)) }, kind: $0.kind,
                id: $0.id, outcome: $0.outcome, detail: $0.detail)
        }
    }
}

/// `sync status --json`: the consent beside the outbox's keys (one flat object).
public struct SyncStatusJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var consent: ConsentJSON
    public var outbox: SyncOutboxJSON

    public init(_ report: SyncStatusReport) {
        consent = ConsentJSON(report.consent)
        outbox = SyncOutboxJSON(report.sync)
    }

    private enum Key: String, CodingKey { case schema, consent }

    public func encode(to encoder: any Encoder) throws {
        try outbox.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(schema, forKey: .schema)
        try container.encode(consent, forKey: .consent)
    }
}

/// `sync privacy --json`: the trim at each end of a trip and the zones.
public struct PrivacyJSON: Encodable, Sendable {
    public struct Zone: Encodable, Sendable {
        public var name: String
        public var lat: Double
        public var lon: Double
        public var radius_m: Double
    }

    public var schema = JSONSchema.version
    public var trim_s: Double
    public var trim_m: Double
    public var zones: [Zone]

    public init(_ p: PrivacySettings) {
        trim_s = p.trim.seconds
        trim_m = p.trim.meters
        zones = p.zones.map { Zone(name: $0.name, lat: $0.center.latitude, lon: $0.center.longitude, radius_m: $0.radiusMeters) }
    }
}

/// `sync requeue --json`: how many quarantined records went back in the queue.
public struct RequeueJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var requeued: Int

    public init(requeued: Int) { self.requeued = requeued }
}

/// `stats --json`: totals over all closed trips and the milestones reached.
public struct StatsJSON: Encodable, Sendable {
    public struct Milestone: Encodable, Sendable {
        public var threshold_m: Int64
        public var trip_id: String
        public var total_m: Double
    }

    public var schema = JSONSchema.version
    public var trips: Int
    public var distance_m: Double
    public var elapsed_s: Double
    public var moving_s: Double
    public var co2_avoided_g: Double
    public var milestones: [Milestone]

    public init(_ s: StoreStatistics) {
        trips = s.trips
        distance_m = s.distanceMeters
        elapsed_s = s.elapsedSeconds
        moving_s = s.movingSeconds
        co2_avoided_g = s.co2AvoidedGrams
        milestones = s.milestones.map { Milestone(threshold_m: $0.thresholdMeters, trip_id: $0.tripID, total_m: $0.totalMeters) }
    }
}

/// `verify --json`: the links checked, the records pruned after sync, and the first broken link.
public struct VerifyJSON: Encodable, Sendable {
    public struct Break: Encodable, Sendable {
        public var seq: Int64
        public var record_kind: String
        public var record_id: String
        public var reason: String
    }

    public var schema = JSONSchema.version
    public var ok: Bool
    public var links: Int
    public var pruned_records: Int
    public var first_break: Break?

    public init(_ r: VerifyReport) {
        ok = r.ok
        links = r.links
        pruned_records = r.prunedRecords
        first_break = r.firstBreak.map { Break(seq: $0.seq, record_kind: $0.recordKind, record_id: $0.recordID, reason: $0.reason) }
    }
}

extension VerifyJSON {
    /// `verify`'s text: where the chain broke, else how many links held.
    public static func text(_ report: VerifyReport) -> String {
        if let b = report.firstBreak {
            return "BROKEN at link \(b.seq) (\(b.recordKind) \(b.recordID)): \(b.reason)\n\(report.links) link(s) verified before it"
        }
        return "ok: \(report.links) link(s) verified"
            + (report.prunedRecords > 0 ? ", \(report.prunedRecords) record(s) pruned after sync" : "")
    }
}

/// `calibration show|reset --json`: the sensitivity per obstacle kind (1 = factory) and
/// the rider's answers it was fitted from.
public struct CalibrationJSON: Encodable, Sendable {
    public var schema = JSONSchema.version
    public var factory: Bool
    public var scales: [String: Double]
    public var answers: Int
    public var answers_used: Int
    public var kept: Int
    public var dropped: Int

    public init(_ r: CalibrationReport) {
        factory = r.isFactory
        scales = r.scales
        answers = r.answers
        answers_used = r.answersUsed
        kept = r.kept
        dropped = r.dropped
    }
}

/// `evaluate --json`: the detector against the rider's marks, per recording and pooled
/// (`total`), with the matching tolerance. A rate that is undefined (no marks, no
/// detections, no distance) is left out.
public struct EvaluationJSON: Encodable, Sendable {
    public struct Result: Encodable, Sendable {
        public var recording: String
        public var labels: Int
        public var detections: Int
        public var matched_labels: Int
        public var kind_agreed: Int
        public var distance_m: Double
        public var recall: Double?
        public var precision: Double?
        public var candidates_per_km: Double?

        init(_ r: EvaluationReport.Result) {
            recording = r.recording
            labels = r.score.labels
            detections = r.score.detections
            matched_labels = r.score.matchedLabels
            kind_agreed = r.score.kindAgreed
            distance_m = r.score.distanceMeters
            recall = r.recall
            precision = r.precision
            candidates_per_km = r.candidatesPerKm
        }
    }

    public struct Tolerance: Encodable, Sendable {
        public var before_s: Double
        public var after_s: Double
        public var along_m: Double
    }

    public var schema = JSONSchema.version
    public var tolerance = Tolerance(
        before_s: DetectorEvaluation.secondsBefore, after_s: DetectorEvaluation.secondsAfter,
        along_m: DetectorEvaluation.metres)
    public var recordings: [Result]
    public var total: Result

    public init(_ report: EvaluationReport) {
        recordings = report.recordings.map(Result.init)
        total = Result(report.total)
    }
}
