import BikePathAPI
import BikePathCore
import BikePathFixtures
@testable import BikePathHub
import Foundation
import Testing

/// The map's evidence is a sum (`MapEvidence`): kept trip by trip, in any order and any
/// grouping, it equals the evidence of every trip at once, to the last bit, and so does the
/// map read off it. This is what lets a store add one confirmation's evidence to what it
/// holds instead of recomputing its neighbourhood.
@Suite(.ownThreads) struct MapEvidenceTests {
    static let rule = CorroborationRule(), status = PathStatusRule()

    static let trips: [MapEvidence] = CitySimulation.generate(riders: 12, rides: 4, seed: 7).confirmations.compactMap { c in
        guard let upload = try? JSONDecoder().decode(ConfirmationUpload.self, from: c.body), upload.confirmed else { return nil }
        return MapEvidence.trip(c.device, upload.draft, rule: rule, pathStatus: status)
    }

    static func sum(_ parts: some Sequence<MapEvidence>) -> MapEvidence {
        parts.reduce(into: MapEvidence()) { $0.add($1) }
    }

    @Test func evidenceAddedInAnyOrderAndGroupingIsTheSame() {
        let trips = Self.trips
        #expect(trips.count == 48)
        let inOrder = Self.sum(trips)
        // Three groups summed apart (three replicas' batches), then together, backwards.
        let groups = (0..<3).map { g in Self.sum(trips.indices.filter { $0 % 3 == g }.reversed().map { trips[$0] }) }
        let grouped = Self.sum(groups.reversed())
        #expect(grouped == inOrder)
        #expect(!inOrder.passes.isEmpty && !inOrder.reports.isEmpty && !inOrder.stretches.isEmpty)
        // Not equal by accident: one trip more or less is seen.
        #expect(Self.sum(trips.dropLast()) != inOrder)
    }

    /// A store's rows grouped as they come (`ReportGroup.Collector`): in order (SQLite reads
    /// a tile at a time, each in key order) or any other (PostgreSQL's join), the groups the
    /// rule reads are the same: every rider's tallies of a cell, sector and kind summed, in
    /// tile, cell, sector and kind order.
    @Test func reportRowsInAnyOrderMakeTheSameGroups() {
        let evidence = Self.sum(Self.trips)
        typealias Key = MapEvidence.ReportKey
        func tile(_ k: Key) -> MapGrid.Cell { MapEvidence.tile(ofReportCell: k.cell) }
        var byGroup: [Key: CorroborationRule.ReportGroup] = [:]
        for (key, tally) in evidence.reports {
            let g = Key(cell: key.cell, sector: key.sector, kind: key.kind, device: "")
            byGroup[
                g,
                default: .init(
                    cell: key.cell, sector: key.sector, kind: key.kind,
                    tally: .init(count: 0, latitude: 0, longitude: 0, axisX: 0, axisY: 0), devices: [])
            ]
            .tally.add(tally)
            byGroup[g]!.devices.append(key.device)
        }
        let expected = byGroup.keys.sorted { (tile($0), $0) < (tile($1), $1) }.map { k in
            var g = byGroup[k]!
            g.devices.sort()
            return g
        }
        #expect(expected.contains { $0.devices.count > 1 }, "some group has several riders")
        #expect(Set(expected.map { tile(Key(cell: $0.cell, sector: 0, kind: "", device: "")) }).count > 1, "groups of several tiles")
        let inOrder = evidence.reports.keys.sorted { (tile($0), $0) < (tile($1), $1) }
        // Reversed, cell by cell across tiles, and rider by rider.
        let byCell = evidence.reports.keys.sorted()
        let byRider = byCell.sorted { ($0.device, $0) < ($1.device, $1) }
        for order in [inOrder, inOrder.reversed(), byCell, byRider] {
            var collector = CorroborationRule.ReportGroup.Collector()
            for key in order { collector.add(key, evidence.reports[key]!) }
            #expect(collector.groups() == expected)
        }
        #expect(CorroborationRule.ReportGroup.all(in: evidence) == expected)
    }

    /// A remake judges only the spots that can be corroborated (`corroborableOnly`): the
    /// corroborated spots are those of judging every spot, and no spot of one rider is left.
    @Test func judgingOnlyCorroborableSpotsKeepsEveryCorroboratedOne() {
        let evidence = Self.sum(Self.trips)
        let groups = CorroborationRule.ReportGroup.all(in: evidence)
        let all = Self.rule.corroborate(Self.rule.gather(groups), passes: evidence.passes)
        let some = Self.rule.corroborate(Self.rule.gather(groups, corroborableOnly: true), passes: evidence.passes)
        #expect(all.contains { $0.riders < Self.rule.minRiders } && all.contains(where: \.corroborated))
        #expect(some.allSatisfy { $0.riders >= Self.rule.minRiders } && some.count < all.count)
        #expect(some.filter(\.corroborated) == all.filter(\.corroborated))
        #expect(some == all.filter { $0.riders >= Self.rule.minRiders })
    }

    @Test func theMapKeptTripByTripIsTheMapBuiltAtOnce() {
        let city = CitySimulation.generate(riders: 12, rides: 4, seed: 7)
        let whole = SharedMap.build(confirmations: city.confirmations.map { ConfirmedRecord(device: $0.device, body: $0.body) })
        let kept = SharedMap(evidence: Self.sum(Self.trips.reversed()))
        #expect(kept.obstacles == whole.obstacles)
        #expect(kept.cells == whole.cells)
        #expect(kept.reports == whole.reports)
        #expect(whole.obstacles.contains(where: \.corroborated) && whole.obstacles.contains { $0.passesWithoutReport > 0 })
    }

    /// A confirmation dirties the tiles its evidence reaches (150 m, `MapTiles.reachMeters`),
    /// not the 3 × 3 neighbourhood of each tile it touches: a short ride in a tile's middle
    /// dirties that tile alone; a report 100 m from its north border dirties the tile north
    /// too. (That the tiles stay equal to the whole map: `MapTileEqualityTests`.)
    @Test func aConfirmationDirtiesTheTilesItsEvidenceReaches() throws {
        let grid = MapTiles.grid
        let tile = grid.cell(of: Fixtures.at(east: 0))
        let b = grid.bounds(of: tile)
        let centre = Coordinate(latitude: (b.south + b.north) / 2, longitude: (b.west + b.east) / 2)
        func near(_ east: Double, _ north: Double) -> Coordinate {
            Coordinate(
                latitude: centre.latitude + north / 111_320,
                longitude: centre.longitude + east / (111_320 * cos(centre.latitude * .pi / 180)))
        }
        func entry(_ path: [Coordinate], reportAt report: Coordinate? = nil) throws -> MapIndexEntry {
            var upload = Fixtures.confirmation(id: "D")
            upload.draft.path = path.map { [$0.latitude, $0.longitude] }
            upload.draft.roadQuality = []
            upload.draft.obstacles =
                report.map {
                    [
                        ObstacleUpload(
                            id: "O", kind: "pothole", offsetS: 10, position: WirePosition(lat: $0.latitude, lon: $0.longitude),
                            origin: "rider")
                    ]
                } ?? []
            return try #require(
                MapTiles.entry(for: IndexableConfirmation(device: "bike-1", id: "D", body: try JSONEncoder().encode(upload))))
        }
        // 250 m from the north and south borders, 200 m from the west and east ones.
        let middle = try entry([near(-50, 0), near(50, 0)])
        #expect(middle.tiles == [tile] && middle.dirty == [tile])
        // 100 m south of the north border: the row north of it is reached (its tiles are not
        // aligned with this row's: one or two of them), no other.
        let report = try entry([near(-50, 0), near(50, 0)], reportAt: near(0, 150))
        let north = grid.cell(of: near(0, 350))
        #expect(north.row == tile.row + 1)
        #expect(report.tiles == [tile] && report.dirty.contains(tile) && report.dirty.contains(north))
        #expect(report.dirty.allSatisfy { $0 == tile || $0.row == north.row } && report.dirty.count <= 3)
    }

    /// A remake reads the reports of its tiles' neighbourhoods through windows a strip deep
    /// (`MapTiles.reportWindows`): they hold every report group within reach of the tiles
    /// (`MapTiles.reaches`), and fewer than the whole neighbourhoods.
    @Test func theReportWindowsHoldEveryReportWithinReach() {
        let evidence = Self.sum(Self.trips)
        let inUse = Set(evidence.reports.keys.map { MapEvidence.tile(ofReportCell: $0.cell) })
        #expect(inUse.count > 4)
        var read = 0, whole = 0
        for dirty in inUse.sorted().map({ Set([$0]) }) + [inUse] {
            let windows = MapTiles.reportWindows(around: dirty)
            var windowed = evidence, neighbourhoods = evidence
            windowed.reports = evidence.reports.filter { key, _ in
                windows.contains {
                    $0.tile == MapEvidence.tile(ofReportCell: key.cell) && $0.rows.contains(key.cell.row)
                        && $0.columns.contains(key.cell.column)
                }
            }
            let area = Set(dirty.flatMap(MapTiles.neighbourhood(of:)))
            neighbourhoods.reports = evidence.reports.filter { area.contains(MapEvidence.tile(ofReportCell: $0.key.cell)) }
            func reaching(_ e: MapEvidence) -> [CorroborationRule.ReportGroup] {
                CorroborationRule.ReportGroup.all(in: e).filter { MapTiles.reaches(dirty, $0.tally.position) }
            }
            #expect(reaching(windowed) == reaching(evidence))
            (read, whole) = (read + windowed.reports.count, whole + neighbourhoods.reports.count)
        }
        #expect(read < whole)
    }
}
