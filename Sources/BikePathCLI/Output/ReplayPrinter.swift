import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathSensors
import Foundation

/// Formats chain outputs for a person (events as they happen, then a trip summary) or
/// as JSON lines for scripts. Times are seconds from the first record of the recording.
public struct ReplayPrinter {
    public let json: Bool
    /// The first record's time: offsets are counted from it.
    public var origin: SampleTime?
    private var trips = 0, obstacles = 0, stretches = 0, sos = 0
    private var statusCounts: [PathStatus: Int] = [:]
    public let reviewBudget: Int
    /// The obstacles of the trip under way, for its review ranking.
    private var tripObstacles: [ObstacleEvent] = []

    /// `json`: one `ChainOutputJSON` line per output instead of text; `reviewBudget`:
    /// how many candidates a trip's review asks about (obstacles.review_budget).
    public init(json: Bool, reviewBudget: Int = ReviewBudget.defaultBudget) {
        self.json = json
        self.reviewBudget = reviewBudget
    }

    /// `bikepathd replay`: the recording through the chain `configuration` makes, `batch` records at a time,
    /// every output printed as it comes and the summary at the end.
    public mutating func replay(_ recording: String, configuration: PipelineConfiguration, batch: Int) throws {
        let reader = try RecordingReader(path: recording)
        var chain = RecordingChain(configuration: configuration, batch: batch)
        let records = try chain.run(reader, first: { origin = $0 }, emit: { print($0) })
        finish(recording: recording, records: records, report: reader.report, status: chain.pipeline.status)
    }

    private func offset(_ t: SampleTime) -> String {
        String(format: "%7.1f s", t - (origin ?? t))
    }

    /// Prints outputs as they come (stdout).
    public mutating func print(_ outputs: [ChainOutput]) {
        for output in outputs {
            count(output)
            if json { emitJSON(output) } else if let line = humanLine(output) { Swift.print(line) }
        }
    }

    private mutating func count(_ output: ChainOutput) {
        switch output {
        case .tripStarted: tripObstacles.removeAll()
        case .tripEnded: trips += 1
        case .obstacle(let e): obstacles += 1; tripObstacles.append(e)
        case .roadQuality(let s): stretches += 1; statusCounts[s.status, default: 0] += 1
        case .sos: sos += 1
        default: break
        }
    }

    /// What the trip's draft will ask: the ranked candidates, the rider's marks, and
    /// how many the review budget holds back.
    private func reviewLines() -> String {
        let selection = ReviewBudget.select(tripObstacles.map(ReviewCandidate.init), budget: reviewBudget)
        var lines = [
            "  review          \(selection.asked.count) candidate(s) to ask about, ranked by severity × confidence; "
                + "\(selection.heldBack.count) held back (budget \(reviewBudget))"
        ]
        for (rank, i) in selection.asked.enumerated() {
            let e = tripObstacles[i]
            let kind = e.kind.word.padding(toLength: 13, withPad: " ", startingAt: 0)
            lines.append(
                "    " + "#\(rank + 1)".padding(toLength: 4, withPad: " ", startingAt: 0) + "\(offset(e.time))  \(kind)"
                    + String(
                        format: "severity %.2f × confidence %.2f, strength %.2f, peak %.1f m/s²",
                        e.severity, e.confidence, e.strength, e.peak))
        }
        for i in selection.riderMarks {
            lines.append("    rider \(offset(tripObstacles[i].time))  \(tripObstacles[i].kind.word)  (the rider's own mark)")
        }
        return lines.joined(separator: "\n")
    }

    private func humanLine(_ output: ChainOutput) -> String? {
        switch output {
        case .activity(let t, let state): return "\(offset(t))  activity   \(state.rawValue)"
        case .tripStarted(let t, let utc): return "\(offset(t))  trip start \(utc.map(ChainOutputJSON.iso8601) ?? "")"
        case .trackPoint, .roadQuality: return nil
        case .obstacle(let e):
            let speed = e.speed.map { String(format: "%.1f km/h", $0 * 3.6) } ?? "speed ?"
            let place = e.coordinate.map { String(format: "%.6f,%.6f", $0.latitude, $0.longitude) } ?? "no fix"
            let who = e.source == .rider ? "marked by the rider: " : ""
            return
                "\(offset(e.time))  obstacle   \(who)\(e.kind.word) peak \(String(format: "%.1f", e.peak)) m/s² at \(place), \(speed)"
        case .sos(let e):
            return "\(offset(e.time))  SOS        impact \(String(format: "%.1f", e.impactPeak)) m/s² at \(offset(e.impactTime))"
        case .tripEnded(let trip):
            let s = trip.statistics
            return """
                \(offset(trip.endTime))  trip end
                  distance        \(String(format: "%.0f m", s.distanceMeters))
                  elapsed         \(duration(s.elapsedSeconds))   moving \(duration(s.movingSeconds))
                  average moving  \(String(format: "%.1f km/h", s.averageMovingSpeed * 3.6))   max \(String(format: "%.1f km/h", s.maxSpeed * 3.6))
                  elevation gain  \(String(format: "%.0f m", s.elevationGainMeters))
                  CO₂ avoided     \(ReviewFormat.co2(s.co2AvoidedGrams))
                  path            \(trip.path.count) points after simplification
                \(reviewLines())
                """
        }
    }

    private func emitJSON(_ output: ChainOutput) {
        Swift.print(ChainOutputJSON.line(output))
    }

    /// The summary at the end: counts to stdout (text) or stderr (JSON), and the file's problems to stderr.
    public func finish(recording: String, records: Int, report: RecordingReadReport, status: PipelineStatus) {
        let problems = report.problems.map { "\($0)" }
        if json {
            standardErrorLine("replayed \(records) records; \(trips) trips, \(obstacles) obstacles, \(sos) SOS")
        } else {
            let quality = PathStatus.allCases.compactMap { s in statusCounts[s].map { "\(s.word) \($0)" } }
            Swift.print(
                """

                \(recording): \(records) records replayed
                  trips \(trips), obstacle candidates \(obstacles), SOS \(sos)
                  road quality: \(stretches) stretches\(quality.isEmpty ? "" : " (" + quality.joined(separator: ", ") + ")")
                  rejected fixes \(rejected(status.rejectedFixes)), rejected IMU samples \(status.rejectedIMUSamples)
                """)
        }
        for p in problems { standardErrorLine("warning: \(recording): \(p)") }
    }
}

private func duration(_ seconds: Double) -> String {
    let s = Int(seconds.rounded())
    return String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60)
}

private func rejected(_ r: FixRejections) -> String {
    "\(r.noPosition + r.badDOP + r.stale + r.jump) (no position \(r.noPosition), DOP \(r.badDOP), stale \(r.stale), jump \(r.jump))"
}
