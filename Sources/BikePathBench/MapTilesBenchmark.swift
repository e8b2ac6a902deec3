import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathStore
import Foundation
import Logging

/// `BikePathBench map-tiles RIDERS RIDES SEED [SCALES]`: the map kept in the database
/// (docs/hub.md, "The map in the database") on the SQLite hub, at each scale of the
/// simulated city (`CitySimulation`; a scale s has √s × the riders and √s × the rides).
/// Prints, per scale: the time to store one more confirmation and bring the map up to
/// date as an upload does (`MapTiles.ingest`: indexed, then the maintainer's pass; the mean
/// of the last 20, each uploaded alone, after the rest in one backlog),
/// and the p95 of a 1 km² bounding-box answer (stored tiles read and decoded, GeoJSON
/// encoded), beside the whole-map build the hub did before per replica.
enum MapTilesBenchmark {
    static func run(riders: Int, rides: Int, seed: UInt64, scales: [Double]) async throws {
        var ingest: [Duration] = []
        for scale in scales {
            let r = max(1, Int((Double(riders) * scale.squareRoot()).rounded()))
            let n = max(1, Int((Double(rides) * scale.squareRoot()).rounded()))
            ingest.append(try await once(riders: r, rides: n, seed: seed, label: "\(Int(scale))×"))
        }
        // Against 1× only when 1× ran in the same invocation (one scale alone compares with nothing).
        if ingest.count > 1, let first = ingest.first, let worst = ingest.max() {
            print(
                "goal: one confirmation's ingest and map update within 2× of 1× at every scale: \(worst <= first * 2 ? "met" : "NOT met") (worst \(worst) against \(first))"
            )
        }
    }

    static func once(riders: Int, rides: Int, seed: UInt64, label: String) async throws -> Duration {
        let city = CitySimulation.generate(riders: riders, rides: rides, seed: seed)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bikepath-map-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clock = ContinuousClock()
        let last = 20
        let backlog = city.confirmations.dropLast(last)
        // A backlog drained before by the same rule and city, when kept (`BIKEPATH_BENCH_CITIES`):
        // at 100× the drain takes most of an hour, the figure measured after it seconds.
        let saved = ProcessInfo.processInfo.environment["BIKEPATH_BENCH_CITIES"].map {
            "\($0)/city-\(riders)x\(rides)-seed\(seed)-\(SHA256Hasher.hash(MapTiles.edition.utf8).hexString.prefix(16)).sqlite"
        }
        let reused = saved.map { FileManager.default.fileExists(atPath: $0) } ?? false
        if let saved, reused { try FileManager.default.copyItem(atPath: saved, toPath: dir + "/hub.sqlite") }
        let store = try SQLiteHubStore(path: dir + "/hub.sqlite")
        try await store.migrate()
        var drained: Duration?
        if !reused {
            for device in Set(city.confirmations.map(\.device)) {
                try await store.issueToken(device: device, token: "token-of-\(device)-0123456789")
            }
            for (i, c) in backlog.enumerated() { _ = try await store.put(device: c.device, records: [(.confirmation, "B\(i)", c.body)]) }
            drained = try await clock.measure { try await MapTiles.update(store) }
            if let saved { try await store.copy(to: saved) }
        }
        // On stderr as it happens: a profiler attaches here (docs/performance.md).
        FileHandle.standardError.write(Data("\(label): backlog of \(backlog.count) in the map; measuring\n".utf8))
        var each: [Duration] = []
        for (i, c) in city.confirmations.suffix(last).enumerated() {
            each.append(
                try await clock.measure {
                    _ = try await store.put(device: c.device, records: [(.confirmation, "L\(i)", c.body)])
                    try await MapTiles.ingest([IndexableConfirmation(device: c.device, id: "L\(i)", body: c.body)], store)
                })
        }
        let mean = each.reduce(.zero, +) / each.count
        // 1 km² boxes at random places of the 4 km city.
        var rng = SplitMix64(state: seed)
        var answers: [Duration] = []
        var features = 0
        for _ in 0..<50 {
            let x = Double(rng.next() % 3_000), y = Double(rng.next() % 3_000)
            let (sw, ne) = (CitySimulation.at(x, y), CitySimulation.at(x + 1_000, y + 1_000))
            let box = BoundingBox(west: sw.longitude, south: sw.latitude, east: ne.longitude, north: ne.latitude)
            answers.append(
                try await clock.measure {
                    let range = MapTiles.range(of: box)
                    let slices = try await store.mapSlices(rows: range.rows, columns: range.columns).map {
                        try MapSlice.decoded($0)
                    }
                    let map = SharedMap(slices: slices)
                    let bodies = try map.encodedGeoJSON(in: box)
                    features = bodies.obstacles.count + bodies.status.count
                })
        }
        answers.sort()
        // `BIKEPATH_BENCH_WHOLE=0` skips it: 3.5 of the 5 minutes of a 100× run with a kept city.
        let whole =
            ProcessInfo.processInfo.environment["BIKEPATH_BENCH_WHOLE"] == "0"
            ? "skipped"
            : "\(clock.measure { _ = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) }) })"

        print(
            "\(label): \(city.confirmations.count) confirmations; backlog of \(backlog.count) "
                + (drained.map { "drained in \($0); " } ?? "drained before (\(saved ?? "")); ")
                + "one more confirmation stored and mapped in \(mean) (mean of \(last)); 1 km² box p95 \(answers[answers.count * 95 / 100]) "
                + "(\(features) bytes of GeoJSON); the whole-map build a replica did before: \(whole)")
        return mean
    }
}
