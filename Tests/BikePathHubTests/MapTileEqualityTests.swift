import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathTestSupport
import Foundation
import Testing

/// The map kept a tile at a time in the database (`MapTiles`) is the map built whole
/// from every confirmation (`SharedMap.build`), on each store: confirmations uploaded
/// in several rounds, each followed by an incremental update, end in the same spots,
/// path-status cells and reports as one recomputation of everything.
@Suite(.ownThreads) struct MapTileEqualityTests {
    static func sorted(_ map: SharedMap) -> (obstacles: [ReportedObstacle], cells: [CellStatus], reports: [RiderReports]) {
        (
            // A slice keeps the corroborated spots only: the others are never answered.
            map.obstacles.filter(\.corroborated).sorted {
                ($0.position.latitude, $0.position.longitude, $0.kind) < ($1.position.latitude, $1.position.longitude, $1.kind)
            },
            map.cells.sorted { $0.cell < $1.cell },
            map.reports.sorted {
                ($0.device, $0.position.latitude, $0.position.longitude) < ($1.device, $1.position.latitude, $1.position.longitude)
            }
        )
    }

    static func firstDifference<T: Equatable>(_ a: [T], _ b: [T]) -> String {
        guard let i = a.indices.first(where: { $0 < b.count && a[$0] != b[$0] }) else {
            return a.count == b.count ? "none" : "one is longer"
        }
        return "tiled \(a[i]) / whole \(b[i])"
    }

    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func incrementalTilesEqualTheWholeMap(_ backend: Backend) async throws {
        // 16 riders × 6 rides on the simulated city: 96 confirmations, commutes repeated,
        // crossings and systematic false spots (BikePathFixtures.CitySimulation).
        let city = CitySimulation.generate(riders: 16, rides: 6, seed: 20)
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            // Three rounds: the first round's tiles are recomputed again as later rides touch them.
            let rounds = stride(from: 0, to: city.confirmations.count, by: 32).map {
                Array(city.confirmations[$0..<min($0 + 32, city.confirmations.count)])
            }
            for (n, round) in rounds.enumerated() {
                for (i, c) in round.enumerated() {
                    let record: StorableRecord = (.confirmation, "D\(n)-\(i)", c.body)
                    _ = try await store.put(device: c.device, records: [record])
                }
                try await MapTiles.update(store)
                #expect(try await store.dirtyMapTiles(limit: 1).isEmpty)
            }
            let whole = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) })
            let box = BoundingBox(
                west: CitySimulation.origin.longitude - 0.05, south: CitySimulation.origin.latitude - 0.05,
                east: CitySimulation.at(4_000, 0).longitude + 0.05, north: CitySimulation.at(0, 4_000).latitude + 0.05)
            let range = MapTiles.range(of: box)
            let stored = try await store.mapSlices(rows: range.rows, columns: range.columns)
            let tiled = SharedMap(slices: try stored.map { try MapSlice.decoded($0) })
            // What the heatmap reads: the stored reports under its box.
            let heat = SharedMap(reportsOf: try await store.mapEvidence(MapTiles.reportWindows(in: box)))
            let (a, b) = (Self.sorted(tiled), Self.sorted(whole))
            #expect(
                b.obstacles.filter(\.corroborated).count > 5 && b.cells.count > 100,
                "the city has corroborated spots and rated cells to compare")
            #expect(
                a.obstacles == b.obstacles,
                "spots: \(a.obstacles.count) tiled, \(b.obstacles.count) whole; first difference: \(Self.firstDifference(a.obstacles, b.obstacles))"
            )
            #expect(
                a.cells == b.cells,
                "cells: \(a.cells.count) tiled, \(b.cells.count) whole; first difference: \(Self.firstDifference(a.cells, b.cells))")
            let heatReports = Self.sorted(heat).reports
            #expect(!b.reports.isEmpty && heatReports == b.reports, "reports: \(heatReports.count) stored, \(b.reports.count) whole")
        }
    }

    /// A hub whose tiles were made by another edition of the rule remakes every one of them
    /// once: a tile left as an older rule made it (here: emptied) is whole again afterwards.
    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func aChangedRuleRemakesEveryTile(_ backend: Backend) async throws {
        // 72 confirmations: indexing them again after the change takes two batches of the scan.
        let city = CitySimulation.generate(riders: 12, rides: 6, seed: 21)
        let whole = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) })
        let corroborated = whole.obstacles.filter(\.corroborated)
        let spot = try #require(corroborated.first, "the city has a corroborated spot")
        let tile = MapTiles.grid.cell(of: spot.position)
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            for (i, c) in city.confirmations.enumerated() {
                _ = try await store.put(device: c.device, records: [(.confirmation, "C\(i)", c.body)])
            }
            try await MapTiles.update(store)
            #expect(try await store.mapEdition() == MapTiles.edition)
            // Compared as content: a slice's order follows the confirmations its pass read.
            let slice = {
                let slices = try await store.mapSlices(rows: tile.row...tile.row, columns: tile.column...tile.column)
                return Self.sorted(SharedMap(slices: try slices.map { try MapSlice.decoded($0) }))
            }
            let made = try await slice()
            // As an older rule left it: the spot's tile holds nothing.
            try await store.index([], dirty: [tile])
            let claim = try #require(try await store.claimDirtyMapTiles(limit: 1).first)
            let empty = try JSONEncoder().encode(MapSlice(obstacles: [], cells: []))
            #expect(try await store.storeMapTile(RemadeTile(tile: claim, slice: empty)))
            try await store.setMapEdition("revision 0, an older rule")
            try await MapTiles.update(store)
            #expect(try await store.mapEdition() == MapTiles.edition)
            #expect(try await store.dirtyMapTiles(limit: 1).isEmpty)
            let remade = try await slice()
            #expect(remade.obstacles == made.obstacles && remade.cells == made.cells, "the emptied tile was remade by this rule")
            #expect(made.obstacles.contains(spot), "the tile held the spot before it was emptied")
        }
    }

    /// A confirmation's evidence is added to the stored sums once, however often it is indexed
    /// (a retried upload, a scan racing an upload, another replica): the sums read back are
    /// its evidence, not twice it.
    @Test(.timeLimitOnceRunning(.minutes(3)), arguments: Backend.available)
    func evidenceIsAddedOncePerConfirmation(_ backend: Backend) async throws {
        let city = CitySimulation.generate(riders: 4, rides: 2, seed: 22)
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await Fixtures.prepare(store, for: city.confirmations)
            let entries = city.confirmations.enumerated().compactMap { i, c in
                MapTiles.entry(for: IndexableConfirmation(device: c.device, id: "E\(i)", body: c.body))
            }
            let expected = entries.reduce(into: MapEvidence()) { $0.add($1.evidence) }
            #expect(!expected.reports.isEmpty && !expected.passes.isEmpty && !expected.stretches.isEmpty)
            try await store.index(entries + entries.prefix(2), dirty: [])
            try await store.index(entries, dirty: [])
            let tiles = Set(expected.reports.keys.map { MapEvidence.tile(ofReportCell: $0.cell) })
                .union(expected.stretches.keys.map { MapEvidence.tile(ofStretchCell: $0.cell) })
            // Each tile whole: every cell a store's integer columns can hold.
            let whole = Int(Int32.min)...Int(Int32.max)
            let windows = tiles.sorted().map { ReportWindow(tile: $0, rows: whole, columns: whole) }
            var stored = try await store.mapEvidence(windows)
            // What a remake reads: the same reports, grouped as the rule groups them.
            #expect(try await store.mapReportGroups(windows) == CorroborationRule.ReportGroup.all(in: expected))
            stored.passes = try await store.mapPasses(cells: Set(expected.passes.keys.map(\.cell)))
            #expect(stored.reports == expected.reports && stored.passes == expected.passes)
            // Stretches are kept per cell, their riders counted once each.
            #expect(try await store.mapStatusCells(tiles: tiles.sorted()) == expected.statusCells)
            #expect(expected.statusCells.values.contains { $0.riders > 1 }, "some cell has several riders to count once each")
        }
    }
}
