import BikePathCore
import BikePathStore
import Foundation

/// What the templates show, as plain values (Mustache reads them by name).
struct Message { let text: String; let isError: Bool }
struct Option { let value: String; let selected: Bool }
struct StatusKey { let name: String; let colour: String }

struct DraftRow {
    let number: Int, id: String, date: String, time: String, distance: String, duration: String, waiting: Int, state: String
}

struct ListPage {
    let title = "Drafts to review"
    let message: Message?
    let drafts: [DraftRow]
}

struct CandidateView {
    let number: Int, id: String, draftID: String, csrf: String, kind: String, origin: String, severity: String, speed: String
    let clock: String, along: String, dropped: Bool, editable: Bool, plot: String, kinds: [Option]
}

struct DraftPage {
    let title: String
    let message: Message?
    let id: String, csrf: String, date: String, time: String, distance: String, duration: String, state: String, pathStatus: String
    let pending: Bool
    let mapWidth: Int, mapHeight: Int
    let kinds: [Option], statuses: [Option], statusKey: [StatusKey]
    let obstacles: [CandidateView]
    let heldBack: Int
    let hasEdits: Bool
    let edits: [String]
}

struct TripsPage {
    let title = "Trips and totals"
    let message: Message? = nil
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
    /// `replay`): kg with two decimals, "0.09 kg" for 90 g. Issue 22: it was "90 g" in
    /// one place and "0.09 kg" in another. JSON keeps grams (`co2_avoided_g`).
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
              (0..<24).contains(h), (0..<60).contains(m), (0..<60).contains(parts.count == 3 ? parts[2]! : 0) else { return nil }
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
    static func row(_ d: DraftSummary, number: Int) -> DraftRow {
        let when = ReviewFormat.date(d.startUTCNanoseconds)
        return DraftRow(number: number, id: d.id, date: when.date, time: when.time, distance: ReviewFormat.distance(d.distanceMeters),
                        duration: ReviewFormat.duration(d.elapsedSeconds), waiting: d.state == .pending ? d.obstacles : 0,
                        state: d.state.rawValue)
    }

    /// The obstacles the page numbers: everything but the held back, in the store's review order.
    static func shown(_ d: DraftDocument) -> [DraftDocument.Obstacle] { d.obstacles.filter { !$0.heldBack } }

    static func draft(_ d: DraftDocument, csrf: String, message: Message?, evidence: [String: CandidateEvidence]) -> DraftPage {
        let when = ReviewFormat.date(d.trip.startUTCNanoseconds)
        let pending = d.state == .pending
        let map = PathProjection(fitting: d.path + shown(d).compactMap(\.coordinate))
        let candidates = shown(d).enumerated().map { i, o in
            let e = o.eventID.flatMap { evidence[$0] }
            let clock = o.timeNanoseconds.flatMap(d.utcNanoseconds(atSampleTime:)).map(ReviewFormat.clock) ?? "–"
            let along = o.coordinate.flatMap(d.distanceAlongPath(to:)).map(ReviewFormat.distance) ?? "–"
            return CandidateView(
                number: i + 1, id: o.id, draftID: d.id, csrf: csrf, kind: o.kind.rawValue, origin: o.origin == "rider" ? "yours" : "detected",
                severity: String(format: "%.2f", o.severity), speed: e?.speed.map { String(format: "%.0f km/h", $0 * 3.6) } ?? "– km/h",
                clock: clock, along: along, dropped: o.dropped, editable: pending && !o.dropped,
                plot: e.flatMap { $0.samples.isEmpty ? nil : WindowPlot(samples: $0.samples, rate: $0.rate, peakIndex: $0.peakIndex).svg } ?? "",
                kinds: ObstacleKind.allCases.map { Option(value: $0.rawValue, selected: $0 == o.kind) })
        }
        let s = d.trip.statistics
        return DraftPage(
            title: "Ride of \(when.date)", message: message, id: d.id, csrf: csrf, date: when.date, time: when.time,
            distance: ReviewFormat.distance(s.distanceMeters), duration: ReviewFormat.duration(s.elapsedSeconds), state: d.state.rawValue,
            pathStatus: d.pathStatus?.rawValue ?? "not rated", pending: pending, mapWidth: Int(map.width), mapHeight: Int(map.height),
            kinds: ObstacleKind.allCases.map { Option(value: $0.rawValue, selected: false) },
            statuses: PathStatus.allCases.map { Option(value: $0.rawValue, selected: $0 == d.pathStatus) },
            statusKey: PathStatus.allCases.map { StatusKey(name: $0.rawValue, colour: DraftMap.colour($0)) },
            obstacles: candidates, heldBack: d.heldBackCount, hasEdits: !d.edits.isEmpty,
            edits: d.edits.map { "\($0.action) \($0.detail)" })
    }

    static func trips(_ s: StoreStatistics, drafts: [DraftSummary], firstStep: Double) -> TripsPage {
        TripsPage(trips: s.trips, distance: ReviewFormat.distance(s.distanceMeters), moving: ReviewFormat.duration(s.movingSeconds),
                  co2: ReviewFormat.co2(s.co2AvoidedGrams), firstMilestone: ReviewFormat.distance(firstStep),
                  milestones: s.milestones.map { "\($0.thresholdMeters / 1000) km passed" },
                  rides: drafts.enumerated().map { row($1, number: $0 + 1) })
    }
}
