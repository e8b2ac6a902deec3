import BikePathFixtures
import BikePathCore
import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import GRDB
import Testing
@testable import BikePathStore

@Suite(.ownThreads) struct ExportTests {
    private var xmllint: String? {
        ["/usr/bin/xmllint", "/usr/local/bin/xmllint"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func gpxIsValidGPX11WithObstaclesAsWaypoints() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 1, seconds: 300)
        let trip = try #require(try store.tripIDs().first)
        let draft = try #require(try await store.listDrafts().first?.id)
        let dropped = try await store.draft(draft).obstacles[0].id
        try store.editDraft(draft, .dropObstacle(obstacleID: dropped))
        let gpx = try store.export(trip: trip, format: .gpx)
        let obstacles = try await store.draft(draft).obstacles.filter { !$0.dropped }
        #expect(gpx.components(separatedBy: "<wpt ").count - 1 == obstacles.count)
        #expect(gpx.components(separatedBy: "<trkpt ").count - 1 == 300)
        #expect(gpx.contains("<time>2026-"))  // synthetic UTC starts at 1_790_000_000 s = 2026-09-21
        guard let xmllint else {
            print("skipped: xmllint not installed (apt-get install libxml2-utils); GPX not checked against the XSD")
            return
        }
        let file = dir.file("trip.gpx")
        try gpx.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try await runProcess(
            xmllint, ["--noout", "--schema", packageRoot + "/Tests/BikePathStoreTests/Fixtures/gpx-1.1.xsd", file])
        #expect(result.status == 0, "\(result.err)")
        #expect(result.err.contains("validates"))
    }

    @Test func isoTimeMatchesKnownInstants() {
        #expect(GPXWriter.isoTime(0) == "1970-01-01T00:00:00.000Z")
        #expect(GPXWriter.isoTime(951_782_400_123_000_000) == "2000-02-29T00:00:00.123Z")
        #expect(GPXWriter.isoTime(1_790_000_000_000_000_000) == "2026-09-21T14:13:20.000Z")
    }

    @Test func geoJSONHasTrackAndObstaclesLongitudeFirst() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 1, seconds: 120)
        let trip = try #require(try store.tripIDs().first)
        let json = try store.export(trip: trip, format: .geojson)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "FeatureCollection")
        let features = try #require(object["features"] as? [[String: Any]])
        let line = try #require(features.first?["geometry"] as? [String: Any])
        #expect(line["type"] as? String == "LineString")
        let first = try #require((line["coordinates"] as? [[Double]])?.first)
        #expect(first[0] > 13 && first[0] < 14 && first[1] > 52 && first[1] < 53)
        #expect(features.count - 1 == (try store.count("SELECT COUNT(*) FROM events WHERE kind = 'obstacle'")))
        #expect(throws: StoreError.noSuchTrip("x")) { try store.export(trip: "x", format: .gpx) }
    }

    @Test func statsSumAllClosedTrips() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Store.open(path: dir.file("s.db"))
        _ = try replay(store, trips: 3, seconds: 200)
        let stats = try await store.statistics()
        let stream = SyntheticRides.stream(trips: 3, secondsPerTrip: 200)
        let records = stream.compactMap { if case .tripEnded(let r) = $0.output { r } else { nil } }
        #expect(stats.trips == 3)
        #expect(abs(stats.distanceMeters - records.map(\.statistics.distanceMeters).reduce(0, +)) < 1e-6)
        #expect(abs(stats.co2AvoidedGrams - records.map(\.statistics.co2AvoidedGrams).reduce(0, +)) < 1e-6)
        #expect(stats.elapsedSeconds == 3 * 199)
    }

    @Test func milestonesFireExactlyOnceAcrossRestarts() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        var config = StoreConfiguration()
        config.milestoneSteps = [1000, 2500]
        var fired: [Int64] = []
        // Each trip is ~1.07 km; four restarts, one trip each.
        for _ in 0..<4 {
            let store = try Store.open(path: dir.file("s.db"), configuration: config)
            let writer = try StoreWriter(store: store)
            let offset = try store.count("SELECT COUNT(*) FROM trips")
            // Shift each restart's trip so that it is a new ride, not a replay.
            for item in SyntheticRides.stream(trips: offset + 1, secondsPerTrip: 200).drop(while: { item in
                if case .tripStarted(let t, _) = item.output { return t.seconds < 1000 + Double(offset) * 320 }
                return true
            }) {
                try writer.append(item.output, at: item.now)
            }
            try writer.flush()
            fired += writer.firedMilestones.map(\.thresholdMeters)
            try store.close()
        }
        let store = try Store.open(path: dir.file("s.db"), configuration: config)
        let total = try await store.statistics().distanceMeters
        #expect(total > 4000 && total < 5000)
        #expect(fired == [1000, 2000, 2500, 3000, 4000])
        #expect(try store.milestones().map(\.thresholdMeters) == [1000, 2000, 2500, 3000, 4000])
        // Closing a replayed trip again fires nothing new.
        #expect(try store.closeOpenTrip() == nil)
    }
}
