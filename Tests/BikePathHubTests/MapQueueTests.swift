import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The map maintainer's queue (`MapMaintainer.stored`) is bounded: past its limit an
/// upload's confirmation is left out of memory, said once per overload, and the scan the
/// maintainer runs at start (then every 30 s) indexes it all the same: nothing is lost.
@Suite(.ownThreads) struct MapQueueTests {
    @Test(.timeLimitOnceRunning(.minutes(2)))
    func aFullQueueLeavesConfirmationsToTheScanAndSaysSoOnce() async throws {
        let city = CitySimulation.generate(riders: 4, rides: 2, seed: 23)
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await Backend.sqlite.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            let confirmations = city.confirmations.enumerated().map { i, c in
                IndexableConfirmation(device: c.device, id: "Q\(i)", body: c.body)
            }
            for c in confirmations { _ = try await store.put(device: c.device, records: [(.confirmation, c.id, c.body)]) }
            #expect(confirmations.count == 8)

            let log = CapturedLog()
            let maintainer = MapMaintainer(store: store, metrics: HubMetrics(), logger: log.logger, queueLimit: 3)
            maintainer.stored(Array(confirmations[0..<2]))
            maintainer.stored(Array(confirmations[2..<5]))  // one fits
            maintainer.stored(Array(confirmations[5...]))  // none fits: the same overload
            #expect(maintainer.queued == 3)
            let warnings = log.all.filter { $0.level == .warning }
            #expect(warnings.count == 1 && warnings.first?.message.contains("left to the scan") == true, "\(warnings)")

            // The first pass indexes the queue, then scans for the rest.
            let running = Task { try await maintainer.run() }
            defer { running.cancel() }
            let deadline = ContinuousClock.now + .seconds(60)
            func caughtUp() async throws -> Bool {
                let unindexed = try await store.unindexedConfirmations(after: nil, limit: 1)
                let dirty = try await store.dirtyMapTiles(limit: 1)
                return unindexed.isEmpty && dirty.isEmpty
            }
            while try await !caughtUp() {
                #expect(ContinuousClock.now < deadline, "the map caught up within 60 s")
                if ContinuousClock.now >= deadline { return }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(maintainer.queued == 0)
            // Every confirmation's evidence is in the sums, once: as if all had been queued.
            let expected = confirmations.compactMap(MapTiles.entry(for:)).reduce(into: MapEvidence()) { $0.add($1.evidence) }
            let tiles = Set(expected.reports.keys.map { MapEvidence.tile(ofReportCell: $0.cell) })
            let whole = Int(Int32.min)...Int(Int32.max)
            let stored = try await store.mapEvidence(tiles.sorted().map { ReportWindow(tile: $0, rows: whole, columns: whole) })
            #expect(!expected.reports.isEmpty && stored.reports == expected.reports)
        }
    }
}
