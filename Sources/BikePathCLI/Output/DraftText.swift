import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathStore
import Foundation

/// `drafts show`'s text: the trip, the candidates the rider is asked about (ranked),
/// how many were held back, road quality and edits.
public enum DraftText {
    /// One row of `drafts list`. `number` is what `show`, `confirm`, `edit` … accept
    /// instead of the id (with --state, the unfiltered list's).
    /// `drafts list`: one row per draft, numbered by its place among `all` (as `drafts show 2` takes it).
    public static func list(_ drafts: [DraftSummary], numberedAmong all: [DraftSummary]) -> String {
        let numbers = Dictionary(uniqueKeysWithValues: all.enumerated().map { ($1.id, $0 + 1) })
        return drafts.isEmpty ? "no drafts" : drafts.map { listRow($0, number: numbers[$0.id] ?? 0) }.joined(separator: "\n")
    }

    public static func listRow(_ d: DraftSummary, number: Int) -> String {
        String(format: "%3d  ", number) + "\(d.id)  \(ReviewFormat.dateAndTime(d.startUTCNanoseconds))  "
            + "\(d.state.word.padding(toLength: 9, withPad: " ", startingAt: 0))  "
            + String(format: "%7.2f km", d.distanceMeters / 1000)
            + "  \(d.obstacles) obstacle(s), \(d.heldBack) held back  path: \(d.pathStatus?.word ?? "-")"
    }

    public static func render(_ d: DraftDocument) -> String {
        let s = d.trip.statistics
        var lines = [
            "draft \(d.id)  state: \(d.state.word)  path status: \(d.pathStatus?.word ?? "not rated")",
            "trip \(d.trip.id)" + (d.trip.closedBy == "recovery" ? "  (closed after a restart)" : ""),
            String(
                format: "  %.2f km, %.0f s moving of %.0f s, max %.1f km/h, ", s.distanceMeters / 1000, s.movingSeconds,
                s.elapsedSeconds, s.maxSpeed * 3.6) + "CO₂ avoided \(ReviewFormat.co2(s.co2AvoidedGrams)), \(d.path.count) path points",
            "obstacles:",
        ]
        let asked = d.obstacles.filter { !$0.heldBack }
        if asked.isEmpty { lines.append("  none") }
        for o in asked { lines.append(obstacleLine(o, d)) }
        let held = d.obstacles.filter(\.heldBack)
        if !held.isEmpty {
            let budget = ConfigurationKey.path(\.obstacles.reviewBudget)
            lines.append(
                "held back: \(held.count) low-ranked candidate(s), not asked about (kept for road quality; review budget \(budget))"
            )
        }
        lines.append("road quality: \(d.roadQuality.count) stretch(es)")
        for r in d.roadQuality {
            lines.append(String(format: "  %.0f m  roughness %.2f  %@", r.lengthMeters, r.roughness, r.status.word))
        }
        if !d.edits.isEmpty {
            lines.append("edits:")
            lines += d.edits.map { "  " + d.sentence(for: $0) }
        }
        return lines.joined(separator: "\n")
    }

    /// `#1 pothole …  detected  severity 0.62 × confidence 0.80`, or `rider` for the rider's own.
    private static func obstacleLine(_ o: DraftDocument.Obstacle, _ d: DraftDocument) -> String {
        let at = o.coordinate.map { String(format: "%.6f,%.6f", $0.latitude, $0.longitude) } ?? "no position"
        let offset = o.timeNanoseconds.map { String(format: "+%.1fs", Double($0 - d.trip.startTimeNanoseconds) / 1e9) } ?? ""
        // Clock time and distance along the path: what the rider remembers of the spot.
        let clockTime = o.timeNanoseconds.flatMap(d.utcNanoseconds(atSampleTime:)).map { " at " + ReviewFormat.clock($0) } ?? ""
        let along = o.coordinate.flatMap(d.distanceAlongPath(to:)).map { String(format: ", %.2f km along the path", $0 / 1000) } ?? ""
        let t = offset + clockTime + along
        let rank = o.reviewRank.map { "#\($0) " } ?? ""
        let figures =
            o.origin == "detected"
            ? String(format: "  severity %.2f × confidence %.2f, strength %.2f", o.severity, o.confidence, o.strength)
            : "  (the rider's own)"
        return "  \(rank)\(o.id)  \(o.kind.word)  \(at) \(t)  \(o.origin)\(figures)\(o.dropped ? "  DROPPED" : "")"
    }
}
