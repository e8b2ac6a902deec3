import BikePathAPI
@testable import BikePathCLI
import BikePathCore
@testable import BikePathDaemon
import BikePathFixtures
import BikePathStore
import BikePathSync
import BikePathTestSupport
import Foundation
import Testing

/// What `bikepathd`'s subcommands hand to the runtime library, in process: the
/// rider's typed edits, privacy changes, `--require`, sync's words and exit
/// statuses, and why a confirmed draft stays on the device.
@Suite(.ownThreads) struct CommandLibraryTests {
    /// A store holding one pending draft of a synthetic 300 s ride.
    static func storeWithDraft(_ dir: TempDir) async throws -> (Store, DraftDocument) {
        let store = try Store.open(path: dir.file("s.db"))
        let writer = try StoreWriter(store: store)
        for (i, item) in SyntheticRides.stream(trips: 1, secondsPerTrip: 300).enumerated() {
            try writer.append(item.output, at: item.now, position: Int64(i))
        }
        try writer.flush()
        let id = try #require(try await store.listDrafts().first?.id)
        return (store, try await store.draft(id))
    }

    @Test("edits come out in the documented order; ids pass through the resolver; text that is no edit is a typed error")
    func draftEditArguments() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, draft) = try await Self.storeWithDraft(dir)
        let first = try #require(draft.obstacles.first?.id)
        let arguments = DraftEditArguments(
            setKind: ["#1=bump"], drop: ["#1"], add: ["debris@12.5", "pothole@45.1,9.2"],
            pathStatus: .medium)
        let edits = try arguments.edits(for: draft) { typed in
            #expect(typed == "#1")
            return first
        }
        let start = SampleTime(nanoseconds: draft.trip.startTimeNanoseconds)
        #expect(
            edits == [
                .setObstacleKind(obstacleID: first, .bump), .dropObstacle(obstacleID: first),
                .addObstacle(.debris, time: start + 12.5, coordinate: nil),
                .addObstacle(.pothole, time: nil, coordinate: Coordinate(latitude: 45.1, longitude: 9.2)),
                .setPathStatus(.medium),
            ])
        #expect(throws: DraftEditArgumentError.setKind("#1=crater")) {
            try DraftEditArguments(setKind: ["#1=crater"]).edits(for: draft) { $0 }
        }
        for bad in ["pothole", "crater@12", "pothole@95,9", "pothole@nan", "pothole@25:99"] {
            #expect(throws: DraftEditArgumentError.add(bad)) { try DraftEditArguments(add: [bad]).edits(for: draft) { $0 } }
        }
        #expect(DraftEditArguments().isEmpty && !DraftEditArguments(pathStatus: .optimal).isEmpty)
    }

    @Test("privacy edits: a zone of the same name is replaced, removals and trims apply; a bad part applies nothing")
    func privacyEdit() throws {
        let before = PrivacySettings(zones: [PrivacyZone(commaSeparated: "home,45,9,200")!])
        let after = try PrivacyEdit(addZones: ["home,45,9,300", "work,46,9,150"], removeZones: ["work"], trimSeconds: 60)
            .applied(to: before)
        #expect(after.zones.map(\.name) == ["home"] && after.zones[0].radiusMeters == 300)
        #expect(after.trim == TripTrim(seconds: 60, meters: 30))
        #expect(throws: PrivacyEditError.zone("home,45,9,0")) { try PrivacyEdit(addZones: ["home,45,9,0"]).applied(to: before) }
        #expect(throws: PrivacyEditError.trim("--trim-meters")) { try PrivacyEdit(trimMeters: -1).applied(to: before) }
        #expect(throws: PrivacyEditError.trim("--trim-seconds")) { try PrivacyEdit(trimSeconds: .infinity).applied(to: before) }
        #expect(PrivacyEdit().isEmpty)
    }

    @Test("--require: names, spaces, none; an unknown sensor is named")
    func requiredSensors() throws {
        #expect(try DiagnosisReport.requiredSensors("gnss, imu") == [.gnss, .imu])
        #expect(try DiagnosisReport.requiredSensors(" none ") == [])
        #expect(throws: SensorListError(name: "gps")) { try DiagnosisReport.requiredSensors("imu,gps") }
    }

    @Test("a sync pass in words (one rule for sync run and the daemon) and its exit status")
    func passResult() {
        #expect(SyncText.pass(.drained(sent: 3, quarantined: 1)) == "sync: drained; sent 3, quarantined 1")
        #expect(
            SyncText.pass(.failed(.unreachable("refused"), retryAfterSeconds: 30), next: 2)
                == "sync: failed: hub unreachable: refused; hub asks to retry in 30.0 s; next try in 2.0 s")
        #expect(PassResult.unauthorized("401").description == "stopped: 401")
        let statuses = [
            PassResult.drained(sent: 0, quarantined: 0), .failed(.recordsToRetry, retryAfterSeconds: nil),
            .unauthorized("x"), .misconfigured("y"),
        ].map(\.exitStatus)
        #expect(statuses == [0, 3, 4, 5])
        // Nothing it tried got through (every record sent was quarantined): a failed pass, not 0.
        #expect(PassResult.drained(sent: 0, quarantined: 2).exitStatus == 3)
        #expect(PassResult.drained(sent: 1, quarantined: 2).exitStatus == 0)
    }

    /// Without a hub in the configuration a confirmed draft is queued (a later `sync --hub`
    /// sends it), and `drafts confirm` says so rather than "stays on this device".
    @Test("a confirmed draft is queued (said so even without a hub); it stays only with share_trips = false or trip sharing off")
    func confirmedDraftSync() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (store, _) = try await Self.storeWithDraft(dir)
        var file = DaemonConfiguration()
        guard case .heldBack(let why) = try await ConsentPolicy.confirmedDraft(store: store, file: file) else {
            Issue.record("trip sharing is off: held back"); return
        }
        #expect(why.description.contains("trip sharing is off"))
        try SyncSettings.setConsent(store, .tripsAndDrafts, true)
        let noHub = try await ConsentPolicy.confirmedDraft(store: store, file: file)
        #expect(noHub == .queuedWithoutHub && noHub.json == "queued")
        #expect(noHub.text(id: "D").contains("waiting to send") && !noHub.text(id: "D").contains("stays on this device"))
        file.sync.hubURL = "https://hub.example.org"
        #expect(try await ConsentPolicy.confirmedDraft(store: store, file: file) == .queued)
        file.privacy.shareTrips = false
        #expect(try await ConsentPolicy.confirmedDraft(store: store, file: file).json.contains("share_trips"))
    }

    /// CO₂ avoided has one formatter, kg with two decimals, in `drafts show`, `replay`,
    /// `stats` and the review page (not "90 g" in one and "0.09 kg" in another).
    @Test("CO₂ avoided reads the same in stats, drafts show and replay")
    func co2InOneUnit() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (store, draft) = try await Self.storeWithDraft(dir)
        let grams = draft.trip.statistics.co2AvoidedGrams
        #expect(grams > 0)
        let kg = String(format: "%.2f kg", grams / 1000)
        #expect(DraftText.render(draft).contains("CO₂ avoided \(kg)"), "\(DraftText.render(draft))")
        let stats = try await store.statistics()
        #expect(StatsText.render(stats).contains("CO₂ avoided: \(String(format: "%.2f kg", stats.co2AvoidedGrams / 1000))"))
        for text in [DraftText.render(draft), StatsText.render(stats)] { #expect(!text.contains(" g,") && !text.contains(" g\n")) }
    }

    @Test("drafts show --json's trip and replay's trip_ended line carry the same totals, in one object each")
    func tripTotalsInBothShapes() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let (_, draft) = try await Self.storeWithDraft(dir)
        let shown = try JSONSerialization.jsonObject(with: Data(try JSONText.document(DraftJSON.draft(draft)).utf8)) as? [String: Any]
        let trip = try #require(shown?["trip"] as? [String: Any])
        let totals = ["distance_m", "elapsed_s", "moving_s", "avg_moving_speed_mps", "max_speed_mps", "elevation_gain_m", "co2_avoided_g"]
        #expect(
            Set(trip.keys)
                == Set(["id", "start_time_s", "end_time_s", "start_utc", "end_utc", "closed_by"] + totals)
                .subtracting(trip["closed_by"] == nil ? ["closed_by"] : []).subtracting(
                    trip["start_utc"] == nil ? ["start_utc", "end_utc"] : []))
        #expect(trip["distance_m"] as? Double == draft.trip.statistics.distanceMeters)
        let summary = TripRecord(
            startTime: SampleTime(nanoseconds: 0), endTime: SampleTime(nanoseconds: 60_000_000_000), startUTC: nil, endUTC: nil,
            statistics: draft.trip.statistics, path: [])
        let line = try JSONSerialization.jsonObject(with: Data(ChainOutputJSON.line(.tripEnded(summary)).utf8)) as? [String: Any]
        for key in totals { #expect(line?[key] as? Double == trip[key] as? Double, "\(key)") }
    }
}
