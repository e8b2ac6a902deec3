import BikePathCore
import BikePathStore
import Foundation

/// What the templates show, as plain values (Mustache reads them by name).
struct Message { let text: String; let isError: Bool }
/// A choice of a select: `value` is what the form sends, `label` what the rider reads.
struct Option { let value: String; let label: String; let selected: Bool }
struct StatusKey { let name: String; let colour: String }
/// One street tile under the map, placed in CSS px.
struct TileView { let url: String; let left: String; let top: String; let size: String }
/// The street tiles under a map: an SVG of the map's size whose `<image>`s are placed by
/// attributes, not by inline style, which the page's Content-Security-Policy forbids.
struct TileLayerView { let width: Int; let height: Int; let tiles: [TileView] }

struct DraftRow {
    let number: Int, id: String, date: String, time: String, distance: String, duration: String, waiting: Int, state: String
}

struct ListPage {
    let title = "Drafts to review"
    let message: Message?
    let drafts: [DraftRow]
}

struct CandidateView {
    let number: Int, id: String, draftID: String, csrf: String, kind: String
    /// What is known of it, joined by " · ": who found it, and for a detection its severity; the speed,
    /// clock time and distance along the path when known ("added by you · 14:31:05 · 1.20 km along the
    /// path", not "severity 0.00 · – km/h · –" for the rider's own).
    let facts: String
    let dropped: Bool, editable: Bool, plot: String, kinds: [Option]
}

/// Whether a confirmed draft leaves the device, and the switch for trip sharing.
struct SharingView {
    let text: String
    /// Trip sharing is off and the file allows it: offer to turn it on.
    let canTurnOn: Bool
    /// Trip sharing is on: offer to turn it off.
    let canTurnOff: Bool
}

struct DraftPage {
    let title: String
    let message: Message?
    let id: String, csrf: String, date: String, time: String, distance: String, duration: String, state: String, pathStatus: String
    let pending: Bool, rejected: Bool
    /// The map drawn inline (its dots link to their candidates).
    let map: String
    /// Street tiles under the map, and whose they are; none without a street map.
    let tileLayer: TileLayerView?
    let attribution: String?
    let statuses: [Option], statusKey: [StatusKey]
    let obstacles: [CandidateView]
    let heldBack: String?
    let hasEdits: Bool
    let edits: [String]
    let sharing: SharingView
}

/// Add mode: pick a kind, tap the line, check the ringed spot, add.
struct AddPage {
    let title = "Add a missed obstacle"
    let message: Message?
    let id: String, csrf: String
    let kinds: [Option]
    let kindValue: String
    /// "Add a pothole here", "Add an irregularity here".
    let addButton: String
    let mapWidth: Int, mapHeight: Int
    let tileLayer: TileLayerView?
    let attribution: String?
    /// `?spot=X,Y` for the map image, or "".
    let spotQuery: String
    /// The tap, sent again by the add button (the server snaps it to the path once more).
    let tapX: String, tapY: String
    let spot: Bool
    let along: String
}

struct RejectPage {
    let title = "Reject this ride?"
    let message: Message? = nil
    let id: String, csrf: String, date: String, time: String, distance: String
}

struct TripsPage {
    let title = "Trips and totals"
    let message: Message? = nil
    /// The outbox in words, by the rule `diagnose`, `sync status` and `status` count by.
    let outbox: String
    let trips: Int, distance: String, moving: String, co2: String, firstMilestone: String
    let milestones: [String]
    let rides: [DraftRow]
}

struct SimplePage {
    let title: String
    let message: Message?
}

/// How the page and `bikepathd drafts` write figures and times: clock time in
/// the device's time zone (what the rider's watch said).
public enum ReviewFormat {
    /// CO₂ avoided as the rider reads it everywhere (review page, `stats`, `drafts show`,
    /// `replay`): kg with two decimals, "0.09 kg" for 90 g, one spelling everywhere ("90 g" in
    /// one place and "0.09 kg" in another read as two figures). JSON keeps grams (`co2_avoided_g`).
    public static func co2(_ grams: Double) -> String { String(format: "%.2f kg", grams / 1000) }

    static func date(_ utcNanoseconds: Int64?) -> (date: String, time: String) {
        guard let ns = utcNanoseconds else { return ("no GNSS time", "") }
        let d = Date(timeIntervalSince1970: Double(ns) / 1e9)
        let c = Calendar.current.dateComponents([.year, .month, .day], from: d)
        return (String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0), clock(ns))
    }

    /// `2026-09-21 14:30:00`, or "no GNSS time".
    public static func dateAndTime(_ utcNanoseconds: Int64?) -> String {
        let d = date(utcNanoseconds)
        return d.time.isEmpty ? d.date : "\(d.date) \(d.time)"
    }

    /// `14:30:00`.
    public static func clock(_ utcNanoseconds: Int64) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second], from: Date(timeIntervalSince1970: Double(utcNanoseconds) / 1e9))
        return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// The UTC time of a clock time (`14:31` or `14:31:05`, the device's time zone)
    /// on the day of `reference`; nil when it is not a clock time.
    public static func utcNanoseconds(clock text: String, onDayOf reference: Int64) -> Int64? {
        let parts = text.split(separator: ":").map { Int($0) }
        guard (2...3).contains(parts.count), parts.allSatisfy({ $0 != nil }), let h = parts[0], let m = parts[1],
            (0..<24).contains(h), (0..<60).contains(m), (0..<60).contains(parts.count == 3 ? parts[2]! : 0)
        else { return nil }
        let day = Calendar.current.startOfDay(for: Date(timeIntervalSince1970: Double(reference) / 1e9))
        let seconds = Double(h * 3600 + m * 60 + (parts.count == 3 ? parts[2]! : 0))
        return Int64(((day.timeIntervalSince1970 + seconds) * 1e9).rounded())
    }

    static func distance(_ metres: Double) -> String {
        metres >= 1000 ? String(format: "%.2f km", metres / 1000) : String(format: "%.0f m", metres)
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? String(format: "%d h %02d min", s / 3600, s % 3600 / 60) : String(format: "%d min %02d s", s / 60, s % 60)
    }
}

enum ReviewViews {
    /// What the rider reads for a path status: its word in the one vocabulary (`RiderWord`).
    static func label(_ status: PathStatus) -> String { status.word }

    /// A draft's state in the rider's words (`DraftState.word`, the CLI's too).
    static func label(_ state: DraftState) -> String { state.word }

    /// "1 candidate", "3 candidates".
    static func count(_ n: Int, _ singular: String, _ plural: String) -> String { "\(n) \(n == 1 ? singular : plural)" }

    /// The notices a redirect may name (`?done=`), but for a confirmation held back (`notice(_:_:)`).
    static let notices: [String: String] = [
        "rejected": "Rejected: it will never be sent. Changed your mind? “Undo reject” below makes it a draft to review again.",
        "reopened": "Reject undone: the ride is waiting for your review again.",
        "undone": "The last edit was undone.", "rated": "Path rated.", "dropped": "Candidate dropped.",
        "changed": "Kind changed.", "added": "Obstacle added.",
        "sharing-on": "Trip sharing is on.", "sharing-off": "Trip sharing is off: confirmed rides stay on this device.",
        "confirmed": "Confirmed: the draft is frozen and queued; the next sync publishes it to the hub.",
        ReviewViews.sendingNotice:
            "Confirmed: the draft is frozen and is being sent to the hub now (trips and totals show it once sent).",
    ]

    /// The notice `key` names: one of `notices`, or a confirmation held back, in `setup`'s words.
    static func notice(_ key: String, _ setup: PublishingSetup) -> String? {
        if let text = notices[key] { return text }
        let holds: [PublishingSetup.Hold] = [.noHub(key: setup.keys.hubURL), .forbiddenByFile(key: setup.keys.shareTrips), .consentOff]
        return holds.first { confirmedNotice($0) == key }.map { "Confirmed: the draft is frozen and stays on this device: \($0)." }
    }

    /// The notice key for a confirmation the page's own sync loop was woken for.
    static let sendingNotice = "confirmed-sending"

    /// The notice key for a confirmation, by where the draft goes.
    static func confirmedNotice(_ hold: PublishingSetup.Hold?) -> String {
        switch hold {
        case nil: "confirmed"
        case .noHub: "confirmed-no-hub"
        case .forbiddenByFile: "confirmed-not-allowed"
        case .consentOff: "confirmed-sharing-off"
        }
    }

    static func sharing(_ setup: PublishingSetup, consent: Consent) -> SharingView {
        let on = consent.tripsAndDrafts
        let text: String
        switch setup.hold(consent: consent) {
        case nil: text = "Trip sharing is on and a hub is set: a confirmed ride is published at the next sync."
        case .noHub:
            text =
                "No hub is set (\(setup.keys.hubURL) in the configuration file): a confirmed ride stays on this device. Trip sharing is \(on ? "on" : "off")."
        case .forbiddenByFile: text = "\(setup.keys.shareTrips) is false in the configuration file: a confirmed ride stays on this device."
        case .consentOff: text = "Trip sharing is off: a confirmed ride is held on this device until you turn it on."
        }
        return SharingView(text: text, canTurnOn: !on && setup.fileAllowsTrips, canTurnOff: on)
    }

    static func row(_ d: DraftSummary, number: Int) -> DraftRow {
        let when = ReviewFormat.date(d.startUTCNanoseconds)
        return DraftRow(
            number: number, id: d.id, date: when.date, time: when.time, distance: ReviewFormat.distance(d.distanceMeters),
            duration: ReviewFormat.duration(d.elapsedSeconds), waiting: d.state == .pending ? d.obstacles : 0,
            state: label(d.state))
    }

    /// The obstacles the page numbers: everything but the held back, in the store's review order.
    static func shown(_ d: DraftDocument) -> [DraftDocument.Obstacle] { d.shownObstacles }

    static func kindOptions(selected: ObstacleKind?) -> [Option] {
        ObstacleKind.allCases.map { Option(value: $0.rawValue, label: $0.word, selected: $0 == selected) }
    }

    /// The tiles under a draft's map, with their URLs: the template's, or the page's own `/tiles/Z/X/Y`.
    static func tiles(_ street: StreetMap, _ p: PathProjection) -> TileLayerView? {
        let maxZoom: Int, url: (TileLayer.Tile) -> String
        switch street {
        case .none: return nil
        case .tiles(let template, _, let zoom):
            maxZoom = zoom
            url = {
                template.replacingOccurrences(of: "{z}", with: "\($0.z)").replacingOccurrences(of: "{x}", with: "\($0.x)")
                    .replacingOccurrences(of: "{y}", with: "\($0.y)")
            }
        case .mbtiles(let file, _):
            maxZoom = file.maxZoom
            url = { "/tiles/\($0.z)/\($0.x)/\($0.y)" }
        }
        let tiles = TileLayer(p, maxZoom: maxZoom).tiles.map {
            TileView(
                url: url($0), left: String(format: "%.1f", $0.left), top: String(format: "%.1f", $0.top),
                size: String(format: "%.1f", $0.size))
        }
        return TileLayerView(width: Int(p.width), height: Int(p.height), tiles: tiles)
    }

    static func draft(
        _ d: DraftDocument, csrf: String, message: Message?, evidence: [String: CandidateEvidence], sharing: SharingView,
        street: StreetMap = .none
    ) -> DraftPage {
        let when = ReviewFormat.date(d.trip.startUTCNanoseconds)
        let pending = d.state == .pending
        let shown = shown(d)
        let candidates = shown.enumerated().map { i, o in
            let e = o.eventID.flatMap { evidence[$0] }
            return CandidateView(
                number: i + 1, id: o.id, draftID: d.id, csrf: csrf, kind: o.kind.word, facts: facts(o, in: d, speed: e?.speed),
                dropped: o.dropped, editable: pending && !o.dropped,
                plot: e.flatMap { $0.samples.isEmpty ? nil : WindowPlot(samples: $0.samples, rate: $0.rate, peakIndex: $0.peakIndex).svg }
                    ?? "",
                kinds: kindOptions(selected: o.kind))
        }
        let s = d.trip.statistics
        let held = d.heldBackCount
        let drawn = DraftMap(d, shown: shown)
        return DraftPage(
            title: "Ride of \(when.date)", message: message, id: d.id, csrf: csrf, date: when.date, time: when.time,
            distance: ReviewFormat.distance(s.distanceMeters), duration: ReviewFormat.duration(s.elapsedSeconds), state: label(d.state),
            pathStatus: d.pathStatus.map(label) ?? "not rated", pending: pending, rejected: d.state == .rejected,
            map: drawn.svg(links: true, background: street == .none),
            tileLayer: tiles(street, drawn.projection), attribution: street.attribution,
            statuses: PathStatus.allCases.map { Option(value: $0.rawValue, label: label($0), selected: $0 == d.pathStatus) },
            statusKey: PathStatus.allCases.map { StatusKey(name: label($0), colour: DraftMap.colour($0)) },
            obstacles: candidates,
            heldBack: held == 0
                ? nil
                : (held == 1
                    ? "1 weaker candidate was not asked about; it still counts for road quality."
                    : "\(held) weaker candidates were not asked about; they still count for road quality."),
            hasEdits: !d.edits.isEmpty, edits: d.edits.map { edit($0, in: d) }, sharing: sharing)
    }

    /// What is known of a candidate, in the page's words: who found it ("detected", "marked by you" in the
    /// field, "added by you" while reviewing), a detection's severity, then the speed, the clock time and
    /// the distance along the path, each only when known.
    static func facts(_ o: DraftDocument.Obstacle, in d: DraftDocument, speed: Double?) -> String {
        var parts: [String]
        if o.origin == "rider" {
            let added = d.edits.contains { $0.action == "add" && $0.detail.contains("\"\(o.id)\"") }
            parts = [added ? "added by you" : "marked by you"]
        } else {
            parts = ["detected", String(format: "severity %.2f", o.severity)]
        }
        if let speed { parts.append(String(format: "%.0f km/h", speed * 3.6)) }
        if let clock = o.timeNanoseconds.flatMap(d.utcNanoseconds(atSampleTime:)).map(ReviewFormat.clock) { parts.append(clock) }
        if let along = o.coordinate.flatMap(d.distanceAlongPath(to:)).map(ReviewFormat.distance) {
            parts.append("\(along) along the path")
        }
        return parts.joined(separator: " · ")
    }

    /// One edit in words, candidates by their number on the page (`DraftDocument.sentence(for:)`, the CLI's too).
    static func edit(_ e: DraftDocument.Edit, in d: DraftDocument) -> String { d.sentence(for: e) }

    static func add(
        _ d: DraftDocument, csrf: String, kind: ObstacleKind, tap: (Double, Double)?, spot: (x: Double, y: Double, along: String)?,
        message: Message?, street: StreetMap = .none
    ) -> AddPage {
        let map = DraftMap(d, shown: shown(d)).projection
        return AddPage(
            message: message, id: d.id, csrf: csrf, kinds: kindOptions(selected: kind), kindValue: kind.rawValue,
            addButton: "Add \(kind.rawValue.first.map { "aeiou".contains($0) } == true ? "an" : "a") \(kind.rawValue) here",
            mapWidth: Int(map.width), mapHeight: Int(map.height), tileLayer: tiles(street, map), attribution: street.attribution,
            spotQuery: spot.map { String(format: "?spot=%.1f,%.1f", $0.x, $0.y) } ?? "",
            tapX: tap.map { String(format: "%.0f", $0.0) } ?? "", tapY: tap.map { String(format: "%.0f", $0.1) } ?? "",
            spot: spot != nil, along: spot?.along ?? "")
    }

    static func rejectQuestion(_ d: DraftDocument, csrf: String) -> RejectPage {
        let when = ReviewFormat.date(d.trip.startUTCNanoseconds)
        return RejectPage(
            id: d.id, csrf: csrf, date: when.date, time: when.time, distance: ReviewFormat.distance(d.trip.statistics.distanceMeters))
    }

    static func trips(_ s: StoreStatistics, drafts: [DraftSummary], firstStep: Double, outbox: SyncDiagnosis) -> TripsPage {
        TripsPage(
            outbox: outbox.summary, trips: s.trips, distance: ReviewFormat.distance(s.distanceMeters),
            moving: ReviewFormat.duration(s.movingSeconds),
            co2: ReviewFormat.co2(s.co2AvoidedGrams), firstMilestone: ReviewFormat.distance(firstStep),
            milestones: s.milestones.map { "\($0.thresholdMeters / 1000) km passed" },
            rides: drafts.enumerated().map { row($1, number: $0 + 1) })
    }
}
