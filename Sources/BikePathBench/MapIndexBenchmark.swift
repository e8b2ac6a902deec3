import BikePathAPI
import BikePathFixtures
import BikePathHub
import BikePathStore
import Foundation

/// `BikePathBench map-index [CONFIRMATIONS]`: the hub's own CPU for the map's share of one
/// confirmation, without a store: its evidence and the tiles it marks (`MapTiles.entry`),
/// and its steps snapped into the path network (`PathNetwork`), on the rides `hub-load`
/// sends (a 2.6 km path of 120 points, 3 reports). Fixed work, best of 5 rounds: the
/// figures to compare before and after a change (docs/performance.md, "Load: the map's CPU").
enum MapIndexBenchmark {
    static func run(confirmations count: Int) async throws {
        let devices = 8
        let uploads: [(IndexableConfirmation, ConfirmationUpload)] = (0..<count).compactMap { i in
            let (device, n) = (i % devices, i / devices)
            guard case .confirmation(let upload) = HubLoadBenchmark.ride(device: device, n: n)[1].body else { return nil }
            return (IndexableConfirmation(device: "bench-\(device)", id: upload.draft.id, body: Data(), upload: upload), upload)
        }
        let clock = ContinuousClock()
        // What a confirmation the scan finds costs first: its stored body decoded (an upload's
        // is decoded by the upload and handed on).
        let bodies = try uploads.map { try WireJSON.encode($0.1) }
        let decode = try (0..<5).map { _ in
            try clock.measure { for b in bodies { _ = try WireKeys.decode(ConfirmationUpload.self, from: b) } }
        }.min()!
        var best: (entry: Duration, network: Duration)?
        var rows = 0
        var digests: (evidence: String, network: String)?
        for _ in 0..<5 {
            var entries: [MapIndexEntry] = []
            entries.reserveCapacity(uploads.count)
            let entry = clock.measure { for (c, _) in uploads { entries.append(MapTiles.entry(for: c)!) } }
            rows = entries.reduce(0) { $0 + $1.evidence.passes.count }
            var graph = PathNetwork()
            let network = clock.measure {
                for (c, u) in uploads {
                    let ride = RiddenPath(device: c.device, u)!
                    _ = graph.tiles(near: ride)
                    graph.add(ride)
                }
            }
            digests = digests ?? (Self.digest(entries), Self.digest(graph))
            best = best.map { (min($0.entry, entry), min($0.network, network)) } ?? (entry, network)
        }
        guard let best, let digests else { return }
        func each(_ d: Duration) -> String {
            String(format: "%.1f µs", (Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12) / Double(count))
        }
        print("map-index: \(count) confirmations of hub-load's rides, best of 5 rounds, per confirmation:")
        print("  evidence and marked tiles (MapTiles.entry): \(each(best.entry)) (\(rows / max(1, count)) pass rows each)")
        print("  path network (tiles near, then add): \(each(best.network))")
        print("  a stored body decoded (what the scan adds to both): \(each(decode))")
        // The SQLite hub's indexing (in-process, so the hub's CPU): a fresh store, 64 a transaction
        // as the maintainer's pass does, then the same again (every sum then an update).
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("bikepath-index-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteHubStore(path: dir + "/hub.sqlite")
        try await store.migrate()
        let entries = uploads.compactMap { MapTiles.entry(for: $0.0) }
        var rounds: [Duration] = []
        for round in 0..<2 {
            let again = entries.map { e in
                var e = e
                e.confirmation.id += "-\(round)"
                return e
            }
            rounds.append(
                try await clock.measure {
                    for start in stride(from: 0, to: again.count, by: 64) {
                        let batch = Array(again[start..<min(again.count, start + 64)])
                        try await store.index(batch, dirty: batch.reduce(into: []) { $0.formUnion($1.dirty) })
                    }
                })
        }
        print("  SQLite's indexing (64 a transaction), new sums / sums updated: \(each(rounds[0])) / \(each(rounds[1]))")
        print("  digest (equal before and after a change that keeps the rule): evidence \(digests.evidence) network \(digests.network)")
        // The city's rides turn, cross and run diagonally, where the load's run north.
        let rides = CitySimulation.generate(riders: 40, rides: 5, seed: 1).confirmations
        let city = rides.enumerated().map { IndexableConfirmation(device: $0.element.device, id: "C\($0.offset)", body: $0.element.body) }
        let graph = PathNetwork.build(rides.map { ConfirmedRecord(device: $0.device, body: $0.body) })
        print(
            "  digest of a simulated city's \(city.count) rides: evidence \(Self.digest(city.compactMap(MapTiles.entry(for:)))) network \(Self.digest(graph))"
        )
    }

    /// What the entries hold, in key order, hashed: two builds agree when their evidence does.
    static func digest(_ entries: [MapIndexEntry]) -> String {
        var text = ""
        for e in entries {
            text += "\(e.tiles.sorted()) \(e.dirty.sorted())\n"
            for k in e.evidence.passes.keys.sorted() { text += "p \(k.cell.row) \(k.cell.column) \(k.sector) \(e.evidence.passes[k]!)\n" }
            for k in e.evidence.reports.keys.sorted() { text += "r \(k) \(e.evidence.reports[k]!)\n" }
            for k in e.evidence.stretches.keys.sorted() { text += "s \(k) \(e.evidence.stretches[k]!)\n" }
        }
        return String(SHA256Hasher.hash(text.utf8).hexString.prefix(12))
    }

    static func digest(_ network: PathNetwork) -> String {
        var text = ""
        for id in network.nodes.keys.sorted() { text += "n \(id) \(network.nodes[id]!)\n" }
        for k in network.links.keys.sorted() {
            let l = network.links[k]!
            text += "l \(k.from) \(k.to) \(l.trips) \(l.devices.sorted()) \(l.lastDay ?? -1) \(l.ratings)\n"
        }
        return String(SHA256Hasher.hash(text.utf8).hexString.prefix(12))
    }
}
