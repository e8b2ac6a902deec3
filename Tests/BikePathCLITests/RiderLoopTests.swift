import BikePathCore
import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing

/// The rider's loop through the built binary: `mark` on a running daemon,
/// `evaluate` on a labelled recording, and calibration from confirmed drafts.
@Suite("Rider's loop: bikepathd mark, evaluate, calibration", .ownThreads)
struct RiderLoopTests {
    static let ride = Paths.root + "/Recordings/allthedocks-GX010056.bpr"

    struct Status: Decodable { struct Trip: Decodable { var state: String }; var trip: Trip }
    struct Mark: Decodable { var error: String?; var kind: String?; var lat: Double?; var lon: Double? }
    /// `drafts show --json` and the obstacle lines of `replay --json` (schema 1, docs/json.md).
    struct Draft: Decodable {
        struct Obstacle: Decodable {
            var id: String; var kind: String; var origin: String; var heldBack: Bool; var strength: Double
            var lat: Double?; var lon: Double?; var timeS: Double?
            var coordinate: Coordinate? { lat.flatMap { la in lon.map { Coordinate(latitude: la, longitude: $0) } } }
        }
        var id: String; var obstacles: [Obstacle]; var heldBack: Int
    }
    struct DraftList: Decodable { struct Line: Decodable { var id: String }; var drafts: [Line] }
    struct ReplayObstacle: Decodable {
        var type: String; var timeS: Double; var lat: Double?; var lon: Double?; var kind: String; var source: String
    }

    static func config(in dir: TempDir, budget: Int? = nil, minPeak: Double? = nil) throws -> String {
        let path = dir.file("bikepathd.toml")
        var text = "[store]\npath = \"\(dir.file("store.sqlite"))\"\n[status]\nsocket = \"\(dir.file("status.sock"))\"\n[obstacles]\n"
        if let budget { text += "review_budget = \(budget)\n" }
        if let minPeak { text += "min_peak_mps2 = \(minPeak)\n" }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: Data(text.utf8))
    }

    static func draft(_ bikepathd: String, db: String, id: String) throws -> Draft {
        try decode(Draft.self, try runProcess(bikepathd, ["drafts", "show", id, "--json", "--db", db]).out)
    }

    static func drafts(_ bikepathd: String, db: String) throws -> [String] {
        try decode(DraftList.self, try runProcess(bikepathd, ["drafts", "list", "--json", "--db", db]).out).drafts.map(\.id)
    }

    @Test("mark: refused without a daemon and outside a trip; mid-ride stored at the position, shown in the draft as the rider's")
    func markThroughTheDaemon() throws {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let socket = dir.file("status.sock")
        let none = try runProcess(bikepathd, ["mark", "--socket", socket])
        #expect(none.status == 1 && none.err.contains("no bikepathd answers on \(socket)"), "\(none)")

        let config = try Self.config(in: dir)
        // 4× real time: the 206 s ride takes 52 s, its trip starts after about 10 s. (At 8× a
        // clean-clone CI, 4 suites at once on 2 cores, once polled past the whole trip.)
        let daemon = try ChildProcess(
            bikepathd, ["run", "--config", config, "--replay", Self.ride, "--replay-speed", "4"],
            output: URL(fileURLWithPath: dir.file("daemon.log")))
        func state() -> String? {
            guard let r = try? runProcess(bikepathd, ["status", "--json", "--socket", socket]), r.status == 0 else { return nil }
            return (try? Self.decode(Status.self, r.out))?.trip.state
        }
        var seen = state()
        for _ in 0..<100 where seen == nil { usleep(50_000); seen = state() }
        #expect(seen == "idle" || seen == "starting", "the ride has not reached its trip yet: \(seen ?? "no daemon")")
        let early = try runProcess(bikepathd, ["mark", "--json", "--socket", socket])
        #expect(early.status == 1)
        #expect(try Self.decode(Mark.self, early.out).error?.hasPrefix("not in a trip") == true, "\(early.out)")

        for _ in 0..<800 where seen != "riding" { usleep(50_000); seen = state() }
        try #require(
            seen == "riding",
            "never seen riding; the daemon's log ends: \(String((try? String(contentsOfFile: dir.file("daemon.log"), encoding: .utf8))?.suffix(1_500) ?? ""))"
        )
        let marked = try runProcess(bikepathd, ["mark", "bump", "--json", "--socket", socket])
        #expect(marked.status == 0, "\(marked)")
        let reply = try Self.decode(Mark.self, marked.out)
        #expect(reply.error == nil && reply.kind == "bump")
        // Both replies and the status as docs/json-schema.json defines them ("mark", "status").
        let schema = try JSONSchemaTests.schema()
        let status = try runProcess(bikepathd, ["status", "--json", "--socket", socket])
        for (out, definition) in [(early.out, "mark"), (marked.out, "mark"), (status.out, "status")] {
            let invalid = schema.violations(of: try JSONValue.parse(out), definition: definition)
            #expect(invalid.isEmpty, "\(definition): \(invalid.prefix(5)) in \(out)")
            #expect(JSONSchemaTests.violations(try JSONSerialization.jsonObject(with: Data(out.utf8))).isEmpty, "\(out)")
        }
        let lat = try #require(reply.lat, "stored at the next fix: \(marked.out)")
        // Two presses at once (two buttons): two obstacles, neither lost.
        let both = try (0..<2).map { i in
            try ChildProcess(bikepathd, ["mark", "debris", "--socket", socket], output: URL(fileURLWithPath: dir.file("m\(i).out")))
        }
        #expect(both.map { $0.waitForExit(timeout: 20) } == [0, 0])
        let human = try runProcess(bikepathd, ["mark", "irregularity", "--socket", socket])
        #expect(human.status == 0 && human.out.hasPrefix("marked irregularity in trip "), "\(human)")

        #expect(daemon.waitForExit(timeout: 120) == 0, "the replay ends by itself")
        let db = dir.file("store.sqlite")
        let ids = try Self.drafts(bikepathd, db: db)
        try #require(ids.count == 1)
        let draft = try Self.draft(bikepathd, db: db, id: ids[0])
        let rider = draft.obstacles.filter { $0.origin == "rider" }
        #expect(rider.map(\.kind).sorted() == ["bump", "debris", "debris", "irregularity"])
        #expect(rider.allSatisfy { !$0.heldBack })
        #expect(rider.first { $0.kind == "bump" }?.coordinate?.latitude == lat, "the draft has the mark where the daemon said it stored it")
        let shown = try runProcess(bikepathd, ["drafts", "show", ids[0], "--db", db]).out
        #expect(shown.contains("bump") && shown.contains("(the rider's own)"), "\(shown)")
    }

    /// The ride with label records added (receive-time order kept).
    static func labelled(_ labels: [(SampleTime, ObstacleKind)], to path: String) throws {
        let (header, records, _) = try RecordingReader.readAll(path: ride)
        var out: [SensorRecord] = []
        var pending = labels.sorted { $0.0 < $1.0 }[...]
        for r in records {
            while let l = pending.first, l.0 < r.time { out.append(.label(l.0, l.1)); pending.removeFirst() }
            out.append(r)
        }
        out += pending.map { .label($0.0, $0.1) }
        let writer = try RecordingWriter(path: path, header: header)
        try writer.append(contentsOf: out)
        try writer.close()
    }

    static func factoryOutputs() throws -> [ChainOutput] {
        var pipeline = Pipeline()
        let (_, records, _) = try RecordingReader.readAll(path: ride)
        return pipeline.process(records) + pipeline.finish()
    }

    /// `evaluate --json` (docs/json.md; decoded with .convertFromSnakeCase).
    struct Evaluation: Decodable {
        struct Result: Decodable {
            var labels: Int; var detections: Int; var matchedLabels: Int; var kindAgreed: Int
            var recall: Double?; var precision: Double?; var candidatesPerKm: Double?
        }
        var total: Result
    }

    @Test("evaluate: marks just after the strongest detections match, a mark far from any does not")
    func evaluateALabelledRide() throws {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let outputs = try Self.factoryOutputs()
        let detections = outputs.compactMap { o -> ObstacleEvent? in if case .obstacle(let e) = o { e } else { nil } }
        let points = outputs.compactMap { o -> TrackPoint? in if case .trackPoint(let p) = o { p } else { nil } }
        try #require(!detections.isEmpty)
        // The rider presses 0.5 s after the strongest two (the reaction), naming their kinds.
        let strongest = detections.sorted { $0.strength > $1.strength }.prefix(2)
        var labels = strongest.map { ($0.time + 0.5, $0.kind) }
        // And once where the detector found nothing: no detection from 5 s before to 1 s after
        // (6 s either side, to be clear of it) and none within 25 m, straight line (along the
        // track is longer still).
        let quiet = try #require(
            points.first { p in
                detections.allSatisfy { d in
                    abs(d.time - p.time) > 6 && d.coordinate.map { Geodesic.distance($0, p.coordinate) > 30 } ?? false
                }
            }, "a place without detections")
        labels.append((quiet.time, .debris))
        let path = dir.file("labelled.bpr")
        try Self.labelled(labels, to: path)
        let inspect = try runProcess(bikepathd, ["inspect", path])
        #expect(inspect.out.contains("3 rider labels"), "\(inspect.out)")

        let run = try runProcess(bikepathd, ["evaluate", "--json", path])
        #expect(run.status == 0, "\(run.err)")
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let total = try decoder.decode(Evaluation.self, from: Data(run.out.utf8)).total
        #expect(total.labels == 3)
        #expect(total.detections == detections.count, "labels do not change what the detector finds")
        #expect(total.matchedLabels == strongest.count)
        #expect(total.kindAgreed == strongest.count)
        let invalid = try JSONSchemaTests.schema().violations(of: try JSONValue.parse(run.out), definition: "evaluation")
        #expect(invalid.isEmpty, "\(invalid.prefix(5))")
        #expect(total.recall == Double(strongest.count) / 3)
        #expect(total.precision == Double(strongest.count) / Double(detections.count))
        #expect((total.candidatesPerKm ?? 0) > 0)
        let text = try runProcess(bikepathd, ["evaluate", path]).out
        #expect(text.contains("recall") && text.contains("tolerance: 5 s before to 1 s after a mark, or 25 m"), "\(text)")
    }

    @Test("calibration: drop the weak candidates of a ride, keep the strong; the next replay loses the weak ones and keeps the kept kinds")
    func calibrationFromAnswers() throws {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        // The factory detector asks about 2 candidates on this ride; with a 6 m/s² floor it
        // asks about enough for calibration to have answers (the strengths are relative to it).
        let config = try Self.config(in: dir, budget: 1000, minPeak: 6)
        let run = try runProcess(bikepathd, ["run", "--config", config, "--replay", Self.ride])
        #expect(run.status == 0, "\(run.err)")
        let db = dir.file("store.sqlite")
        let id = try #require(try Self.drafts(bikepathd, db: db).first)
        let draft = try Self.draft(bikepathd, db: db, id: id)
        let candidates = draft.obstacles.filter { $0.origin == "detected" }
        try #require(candidates.count >= 5, "enough answers to calibrate (SensitivityCalibration.minimumAnswers)")
        // The rider's answers: the weaker half are false (dropped), the stronger half real (kept).
        // The cut is on calibration's 0.05 grid within its bounds, so a scale exists that separates them.
        let strengths = candidates.map(\.strength).sorted()
        let cut = min((strengths[strengths.count / 2] * 20).rounded(.up) / 20, DetectorSensitivity.bounds.upperBound)
        let dropped = candidates.filter { $0.strength < cut }
        let kept = candidates.filter { $0.strength >= cut }
        try #require(!dropped.isEmpty && !kept.isEmpty)
        let edit = try runProcess(bikepathd, ["drafts", "edit", id, "--db", db] + dropped.flatMap { ["--drop", $0.id] })
        #expect(edit.status == 0, "\(edit.err)")
        #expect(try runProcess(bikepathd, ["drafts", "confirm", id, "--db", db]).status == 0)

        let show = try runProcess(bikepathd, ["calibration", "show", "--json", "--db", db])
        struct Report: Decodable { var factory: Bool; var answers: Int; var dropped: Int }  // docs/json.md
        let report = try JSONDecoder().decode(Report.self, from: Data(show.out.utf8))
        #expect(!report.factory && report.answers == candidates.count && report.dropped == dropped.count)

        func replay(_ extra: [String]) throws -> [ReplayObstacle] {
            let r = try runProcess(bikepathd, ["replay", "--json", "--config", config, Self.ride] + extra)
            return try r.out.split(separator: "\n").filter { $0.contains("\"type\":\"obstacle\"") }
                .map { try Self.decode(ReplayObstacle.self, String($0)) }
        }
        let factory = try replay([])
        let calibrated = try replay(["--db", db])
        func found(_ o: Draft.Obstacle, in events: [ReplayObstacle]) -> Bool {
            events.contains { e in o.timeS.map { abs(e.timeS - $0) < 1e-6 } ?? false && e.source == "detected" }
        }
        // Kept: found again at its place. A hit merged behind a dropped neighbour (within the
        // merge distance, 5 m) may now be the one reported there, at another peak time.
        func near(_ o: Draft.Obstacle, in events: [ReplayObstacle]) -> Bool {
            guard let c = o.coordinate else { return false }
            return events.contains { e in
                guard let lat = e.lat, let lon = e.lon else { return false }
                return Geodesic.distance(Coordinate(latitude: lat, longitude: lon), c) <= PipelineConfiguration().obstacleMergeMeters
            }
        }
        #expect((dropped + kept).allSatisfy { found($0, in: factory) }, "the draft's candidates are the replay's")
        #expect(dropped.allSatisfy { !found($0, in: calibrated) }, "every candidate the rider dropped falls")
        #expect(kept.allSatisfy { near($0, in: calibrated) }, "every candidate the rider kept is still found")
        #expect(Set(kept.map(\.kind)).isSubset(of: Set(calibrated.map(\.kind))))
        #expect(calibrated.count < factory.count)

        // diagnose shows it; reset returns to the factory setting.
        let diagnose = try runProcess(bikepathd, ["diagnose", "--duration", "0.5", "--db", db, "--gpsd-port", "1"])
        #expect(diagnose.out.contains("detector sensitivity: calibrated"), "\(diagnose.out)")
        #expect(try runProcess(bikepathd, ["calibration", "reset", "--db", db]).status == 0)
        #expect(try replay(["--db", db]).count == factory.count)
    }
}
