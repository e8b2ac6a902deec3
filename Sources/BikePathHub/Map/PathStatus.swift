import BikePathCore
import Foundation

/// One road-quality stretch of one rider's confirmed trip.
public struct StretchReport: Sendable, Equatable {
    public var device: String
    public var midpoint: Coordinate
    public var lengthMeters: Double
    public var status: PathStatus

    public init(device: String, midpoint: Coordinate, lengthMeters: Double, status: PathStatus) {
        (self.device, self.midpoint, self.lengthMeters, self.status) = (device, midpoint, lengthMeters, status)
    }
}

/// The status of one map cell and how many riders it rests on.
public struct CellStatus: Sendable, Equatable, Codable {
    public var cell: MapGrid.Cell
    public var status: PathStatus
    public var riders: Int
}

/// The path-status rule (docs/hub.md, "Path status"), in the vocabulary of Best Bike
/// Paths (`PathStatus` of BikePathCore, best first). Pure.
///
/// - A stretch belongs to the cell of its midpoint (`grid`, 100 m cells).
/// - Each rider's stretches in a cell are weighed by length; the cell's status is the
///   length-weighted median status over all riders, so one rough pass among many smooth
///   ones does not condemn a street.
/// - A corroborated obstacle in the cell makes it `requiresMaintenance`.
/// - `riders` counts the distinct devices behind the value.
public struct PathStatusRule: Sendable, Equatable {
    public var grid = MapGrid(cellMeters: 100)

    public init() {}

    public func statuses(stretches: [StretchReport], obstacles: [ReportedObstacle]) -> [CellStatus] {
        var evidence = MapEvidence()
        for s in stretches { evidence.add(s, grid: grid) }
        return statuses(evidence.statusCells, obstacles: obstacles)
    }

    /// The statuses of summed cells (`MapEvidence.statusCells`).
    public func statuses(_ cells: [MapGrid.Cell: MapEvidence.StatusCell], obstacles: [ReportedObstacle]) -> [CellStatus] {
        let blocked = Set(obstacles.filter(\.corroborated).map { grid.cell(of: $0.position) })
        return cells.keys.sorted().compactMap { cell in
            let sums = cells[cell]!
            let total = sums.lengths.values.reduce(0, +)
            guard total > 0 else { return nil }
            var weight: Int64 = 0
            var median = PathStatus.requiresMaintenance
            for status in PathStatus.allCases {
                weight += sums.lengths[status] ?? 0
                if 2 * weight >= total { median = status; break }
            }
            return CellStatus(cell: cell, status: blocked.contains(cell) ? .requiresMaintenance : median, riders: sums.riders)
        }
    }
}
