import BikePathCore
import BikePathSensors
import BikePathStore
import BikePathTestSupport
import Foundation
import Testing

/// A trip closed after a power cut has the totals of the same trip closed by the chain
/// (geodesic distance, 4 m elevation hysteresis, Douglas–Peucker path, CO₂ at 168 g/km):
/// both call `TripTotals`, and the real ride is closed both ways and compared.
@Suite(.ownThreads) struct RecoveryTotalsTests {
    @Test func tripClosedAfterAPowerCutHasTheChainsTotals() async throws {
        var pipeline = Pipeline()
        var outputs: [ChainOutput] = []
        let reader = try RecordingReader(path: Paths.root + "/Recordings/allthedocks-GX010056.bpr")
        var batch: [SensorRecord] = []
        _ = try reader.forEach { record in
            batch.append(record)
            if batch.count == 512 { outputs += pipeline.process(batch); batch.removeAll() }
        }
        outputs += pipeline.process(batch)
        outputs += pipeline.finish()
        let end = try #require(outputs.firstIndex { if case .tripEnded = $0 { true } else { false } })
        guard case .tripEnded(let chainTrip) = outputs[end] else { return }

        // Every fix stored (no thinning), so that both ways see the same points.
        var policy = WriterPolicy()
        policy.minPointDistanceMeters = 0
        policy.minPointSeconds = 0
        let dir = try TempDir()
        defer { dir.cleanup() }
        func stored(_ name: String, _ prefix: ArraySlice<ChainOutput>, powerCut: Bool) async throws -> DraftDocument {
            let store = try Store.open(path: dir.file(name))
            let writer = try StoreWriter(store: store, policy: policy)
            // `at` only paces the commits here.
            for (i, output) in prefix.enumerated() { try writer.append(output, at: SampleTime(seconds: Double(i))) }
            try writer.flush()
            if powerCut { #expect(try store.closeOpenTrip() != nil) }
            let draft = try #require(try await store.listDrafts().first)
            return try await store.draft(draft.id)
        }
        let normal = try await stored("normal.db", outputs[...end], powerCut: false)
        let recovered = try await stored("cut.db", outputs[..<end], powerCut: true)

        #expect(normal.trip.statistics == chainTrip.statistics)
        #expect(recovered.trip.closedBy == "recovery")
        let a = normal.trip.statistics, b = recovered.trip.statistics
        #expect(a.distanceMeters > 500, "a real ride: \(a.distanceMeters) m")
        for (name, x, y) in [
            ("distance", a.distanceMeters, b.distanceMeters), ("moving", a.movingSeconds, b.movingSeconds),
            ("elapsed", a.elapsedSeconds, b.elapsedSeconds), ("max speed", a.maxSpeed, b.maxSpeed),
            ("average", a.averageMovingSpeed, b.averageMovingSpeed),
            ("elevation gain", a.elevationGainMeters, b.elevationGainMeters), ("CO2", a.co2AvoidedGrams, b.co2AvoidedGrams),
        ] {
            #expect(abs(x - y) <= 1e-9 * max(1, abs(x)), "\(name): chain \(x), recovery \(y)")
        }
        #expect(normal.trip.endTimeNanoseconds == recovered.trip.endTimeNanoseconds)
        #expect(normal.path == recovered.path)
    }
}
