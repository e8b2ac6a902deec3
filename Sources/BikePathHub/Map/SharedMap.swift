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
    public var reports: [ObstacleReport]
    public var pathStatus: PathStatusRule
    /// Riders a published cell (path status, heatmap) must rest on: with one, a reader
    /// could follow a single rider's rides.
    public var minRiders: Int

    public static func build(
        confirmations: [ConfirmedRecord], corroboration: CorroborationRule = CorroborationRule(),
        pathStatus: PathStatusRule = PathStatusRule()
    ) -> SharedMap {
        var reports: [ObstacleReport] = [], passes: [TripPass] = [], stretches: [StretchReport] = []
        for record in confirmations {
            // Stored records passed validation; one that no longer decodes is left out of the map, not fatal.
            guard let confirmation = try? JSONDecoder().decode(ConfirmationUpload.self, from: record.body), confirmation.confirmed else {
                continue
            }
            let draft = confirmation.draft
            let day = draft.trip.startUtcNs.map { Int($0 / 86_400_000_000_000) }
            for o in draft.obstacles {
                guard let p = o.position else { continue }  // no position: it lay in a privacy zone
                reports.append(
                    ObstacleReport(
                        device: record.device, trip: draft.trip.id, kind: o.kind,
                        position: Coordinate(latitude: p.lat, longitude: p.lon), day: day))
            }
            let path = draft.path.compactMap { $0.count == 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil }
            if !path.isEmpty { passes.append(TripPass(device: record.device, trip: draft.trip.id, path: path)) }
            for r in draft.roadQuality {
                guard let a = r.start, let b = r.end, let status = PathStatus(rawValue: r.status) else { continue }
                stretches.append(
                    StretchReport(
                        device: record.device, midpoint: Coordinate(latitude: (a.lat + b.lat) / 2, longitude: (a.lon + b.lon) / 2),
                        lengthMeters: r.lengthM, status: status))
            }
        }
        let obstacles = corroboration.corroborate(reports: reports, passes: passes)
        return SharedMap(
            obstacles: obstacles, cells: pathStatus.statuses(stretches: stretches, obstacles: obstacles), reports: reports,
            pathStatus: pathStatus, minRiders: corroboration.minRiders)
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
            byCell[cell, default: (0, [])].reports += 1
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
