import BikePathAPI
import BikePathCore
import Foundation

/// The riders' shared map: everything the public read endpoints answer from, built
/// from confirmed records only (a draft is public only once its rider confirmed it).
/// Pure: the same confirmations give the same map on every replica.
public struct SharedMap: Sendable {
    /// Every spot, corroborated or not; the public reader sees only corroborated ones.
    public var obstacles: [ReportedObstacle]
    public var cells: [CellStatus]
    /// Each rider's confirmed reports by 10 m cell, for the heatmap.
    public var reports: [RiderReports]
    public var pathStatus: PathStatusRule
    /// Riders a published cell (path status, heatmap) must rest on: with one, a reader
    /// could follow a single rider's rides.
    public var minRiders: Int

    public static func build(
        confirmations: [ConfirmedRecord], corroboration: CorroborationRule = CorroborationRule(),
        pathStatus: PathStatusRule = PathStatusRule()
    ) -> SharedMap {
        var evidence = MapEvidence()
        for record in confirmations {
            // Stored records passed validation; one that no longer decodes is left out of the map, not fatal.
            guard let confirmation = try? WireKeys.decode(ConfirmationUpload.self, from: record.body), confirmation.confirmed else {
                continue
            }
            evidence.add(MapEvidence.trip(record.device, confirmation.draft, rule: corroboration, pathStatus: pathStatus))
        }
        return SharedMap(evidence: evidence, corroboration: corroboration, pathStatus: pathStatus)
    }

    /// Corroborated obstacles inside `box`.
    public func publishedObstacles(in box: BoundingBox) -> [ReportedObstacle] {
        obstacles.filter { $0.corroborated && box.contains($0.position) }
    }

    /// Cells inside `box` (by their centre) resting on at least `minRiders` riders.
    public func publishedStatus(in box: BoundingBox) -> [CellStatus] {
        cells.filter { $0.riders >= minRiders && box.contains(pathStatus.grid.centre(of: $0.cell)) }
    }

    /// One heatmap cell: confirmed obstacle reports and the riders they came from.
    public struct HeatCell: Sendable, Equatable {
        public var cell: MapGrid.Cell
        public var reports: Int
        public var riders: Int
    }

    /// Reports per cell of `grid` inside `box`, only cells with at least `minRiders` riders.
    public func heatmap(in box: BoundingBox, grid: MapGrid) -> [HeatCell] {
        var byCell: [MapGrid.Cell: (reports: Int, riders: Set<String>)] = [:]
        for r in reports where box.contains(r.position) {
            let cell = grid.cell(of: r.position)
            byCell[cell, default: (0, [])].reports += r.reports
            byCell[cell, default: (0, [])].riders.insert(r.device)
        }
        return byCell.keys.sorted().compactMap { cell in
            let v = byCell[cell]!
            return v.riders.count >= minRiders ? HeatCell(cell: cell, reports: v.reports, riders: v.riders.count) : nil
        }
    }
}

extension MapGrid {
    func centre(of cell: Cell) -> Coordinate {
        let b = bounds(of: cell)
        return Coordinate(latitude: (b.south + b.north) / 2, longitude: (b.west + b.east) / 2)
    }
}

extension SharedMap {
    /// The map read off summed evidence (`MapEvidence`); its spots from `gathered` when
    /// given (`CorroborationRule.gather` of its reports, or of a store's report groups when it
    /// holds only rides, as a remake's does), its path-status cells from
    /// `statusCells` when given (a store's, kept per cell), else from the evidence's stretches.
    public init(
        evidence: MapEvidence, gathered: CorroborationRule.Gathered? = nil, statusCells: [MapGrid.Cell: MapEvidence.StatusCell]? = nil,
        corroboration: CorroborationRule = CorroborationRule(), pathStatus: PathStatusRule = PathStatusRule()
    ) {
        let obstacles = corroboration.corroborate(gathered ?? corroboration.gather(evidence), passes: evidence.passes)
        self.init(
            obstacles: obstacles, cells: pathStatus.statuses(statusCells ?? evidence.statusCells, obstacles: obstacles),
            reports: RiderReports.of(evidence), pathStatus: pathStatus, minRiders: corroboration.minRiders)
    }

    /// A map of `evidence`'s reports alone: what the heatmap answer reads (the stored
    /// reports under its box, `MapTiles.reportWindows(in:)`).
    public init(reportsOf evidence: MapEvidence, corroboration: CorroborationRule = CorroborationRule()) {
        self.init(
            obstacles: [], cells: [], reports: RiderReports.of(evidence), pathStatus: PathStatusRule(), minRiders: corroboration.minRiders)
    }
}

/// One rider's confirmed reports in one 10 m cell of the map's evidence, at their mean position.
public struct RiderReports: Sendable, Equatable, Codable {
    public var position: Coordinate
    public var device: String
    public var reports: Int

    /// Each rider's reports in each 10 m cell of `evidence`, in cell and device order.
    static func of(_ evidence: MapEvidence) -> [RiderReports] {
        var byRider: [Key: MapEvidence.ReportTally] = [:]
        for (key, tally) in evidence.reports {
            let k = Key(cell: key.cell, device: key.device)
            if byRider[k] == nil { byRider[k] = tally } else { byRider[k]!.add(tally) }
        }
        return byRider.keys.sorted().map { RiderReports(position: byRider[$0]!.position, device: $0.device, reports: byRider[$0]!.count) }
    }

    /// A rider in a cell (of any grid).
    struct Key: Hashable, Comparable {
        var cell: MapGrid.Cell
        var device: String
        static func < (a: Key, b: Key) -> Bool { (a.cell, a.device) < (b.cell, b.device) }
    }
}
