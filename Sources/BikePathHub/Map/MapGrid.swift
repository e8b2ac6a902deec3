import BikePathCore
import Foundation

/// The map's segments: square cells of `cellMeters` on a side, rows of equal latitude
/// height and, per row, columns of equal width in metres at the row's middle latitude.
/// A stretch of road is the part of it inside one cell (docs/hub.md, "Path status").
public struct MapGrid: Sendable, Equatable {
    public var cellMeters: Double

    public init(cellMeters: Double) { self.cellMeters = cellMeters }

    /// A cell: its row (south to north) and column (west to east).
    public struct Cell: Hashable, Sendable, Comparable, Codable {
        public var row: Int
        public var column: Int
        public init(row: Int, column: Int) {
            self.row = row
            self.column = column
        }
        public static func < (a: Cell, b: Cell) -> Bool { (a.row, a.column) < (b.row, b.column) }
        /// One word to hash, not two: the map's evidence hashes millions of cells.
        public func hash(into hasher: inout Hasher) { hasher.combine(row &* 1_000_003 &+ column) }
    }

    /// Metres per degree of latitude (mean; the grid is a partition, not a survey).
    static let metresPerDegree = 111_320.0

    var latitudeStep: Double { cellMeters / Self.metresPerDegree }

    func longitudeStep(row: Int) -> Double {
        let middle = (Double(row) + 0.5) * latitudeStep
        return cellMeters / (Self.metresPerDegree * max(cos(middle * .pi / 180), 0.01))
    }

    func row(of latitude: Double) -> Int { Int((latitude / latitudeStep).rounded(.down)) }

    func column(of longitude: Double, step: Double) -> Int { Int((longitude / step).rounded(.down)) }

    public func cell(of c: Coordinate) -> Cell {
        let row = row(of: c.latitude)
        return Cell(row: row, column: column(of: c.longitude, step: longitudeStep(row: row)))
    }

    /// The 3 × 3 cells around a point: its row, and the column it falls in on that row and on
    /// the rows south and north of it (a row's columns have their own width).
    struct Neighbourhood: Equatable {
        var row: Int
        var south: Int, centre: Int, north: Int

        var cells: [Cell] {
            var cells: [Cell] = []
            cells.reserveCapacity(9)
            for (dr, column) in [(-1, south), (0, centre), (1, north)] {
                for dc in -1...1 { cells.append(Cell(row: row + dr, column: column + dc)) }
            }
            return cells
        }
    }

    /// `c`'s neighbourhood, with each row's column width from `step`.
    func neighbourhood(of c: Coordinate, step: (Int) -> Double) -> Neighbourhood {
        let row = row(of: c.latitude)
        func column(_ r: Int) -> Int { self.column(of: c.longitude, step: step(r)) }
        return Neighbourhood(row: row, south: column(row - 1), centre: column(row), north: column(row + 1))
    }

    /// `cell(of:)` and `neighbourhood(of:)` for many points in a row: a row's column width
    /// costs a cosine, and points along a ride stay in the same few rows, so the last rows'
    /// widths are kept (the same numbers, the same cells).
    struct RowSteps {
        let grid: MapGrid
        private var kept: [(row: Int, step: Double)] = []
        init(_ grid: MapGrid) { self.grid = grid }

        mutating func longitudeStep(row: Int) -> Double {
            if let k = kept.first(where: { $0.row == row }) { return k.step }
            let step = grid.longitudeStep(row: row)
            if kept.count == 4 { kept.removeFirst() }
            kept.append((row, step))
            return step
        }

        mutating func cell(of c: Coordinate) -> Cell {
            let row = grid.row(of: c.latitude)
            return Cell(row: row, column: grid.column(of: c.longitude, step: longitudeStep(row: row)))
        }

        mutating func neighbourhood(of c: Coordinate) -> Neighbourhood { grid.neighbourhood(of: c) { longitudeStep(row: $0) } }
    }

    /// South-west and north-east corners.
    public func bounds(of cell: Cell) -> (south: Double, west: Double, north: Double, east: Double) {
        let dLon = longitudeStep(row: cell.row)
        return (
            Double(cell.row) * latitudeStep, Double(cell.column) * dLon, Double(cell.row + 1) * latitudeStep, Double(cell.column + 1) * dLon
        )
    }

    /// The cell and its eight neighbours: every cell holding a point within `cellMeters` of `c`.
    func neighbourhood(of c: Coordinate) -> [Cell] { neighbourhood(of: c, step: longitudeStep(row:)).cells }
}

/// A bounding box in degrees, as GeoJSON and the read API write it: west, south, east, north.
public struct BoundingBox: Sendable, Equatable {
    public var west, south, east, north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        (self.west, self.south, self.east, self.north) = (west, south, east, north)
    }

    /// Why a `bbox` query parameter was refused.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case tooLarge(squareKm: Double, limit: Double)
        public var description: String {
            switch self {
            case .malformed(let s): "bbox must be WEST,SOUTH,EAST,NORTH in degrees with WEST < EAST and SOUTH < NORTH, got \(s)"
            case .tooLarge(let a, let l): "bbox covers \(Int(a)) km², more than the \(Int(l)) km² one request may ask for"
            }
        }
    }

    /// `WEST,SOUTH,EAST,NORTH`, within `maxSquareKm` (a city is ~900 km²; the limit bounds one answer).
    public static func parse(_ text: String, maxSquareKm: Double = 10_000) throws(Problem) -> BoundingBox {
        // Exactly four plain decimals (docs/api.yaml's pattern): `1,,2,3,4`, `1,x,2,3,4` and
        // `0x1p3` are what a lenient split would accept.
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
        let parts = fields.compactMap { DecimalText.number($0, exponent: false) }
        guard fields.count == 4, parts.count == 4 else { throw .malformed(text) }
        let box = BoundingBox(west: parts[0], south: parts[1], east: parts[2], north: parts[3])
        guard box.west < box.east, box.south < box.north, box.south >= -90, box.north <= 90, box.west >= -180, box.east <= 180 else {
            throw .malformed(text)
        }
        let km = box.squareKm
        guard km <= maxSquareKm else { throw .tooLarge(squareKm: km, limit: maxSquareKm) }
        return box
    }

    /// The box of `points`; nil for none.
    init?(around points: [Coordinate]) {
        guard let first = points.first else { return nil }
        self.init(west: first.longitude, south: first.latitude, east: first.longitude, north: first.latitude)
        for p in points.dropFirst() {
            (west, east) = (min(west, p.longitude), max(east, p.longitude))
            (south, north) = (min(south, p.latitude), max(north, p.latitude))
        }
    }

    /// The box widened by `meters` on every side, within the world: 111,320 m a degree of
    /// latitude, and a degree of longitude as short as at the box's edge farthest from the
    /// equator (floored at 1 % of the equator's, so a box at a pole stays finite).
    func widened(byMeters meters: Double) -> BoundingBox {
        let dLat = meters / 111_320, dLon = dLat / max(cos(max(abs(south), abs(north)) * .pi / 180), 0.01)
        return BoundingBox(
            west: max(-180, west - dLon), south: max(-90, south - dLat), east: min(180, east + dLon), north: min(90, north + dLat))
    }

    /// Its area, as a rectangle at its middle latitude.
    public var squareKm: Double { (north - south) * 111.32 * (east - west) * 111.32 * cos((south + north) / 2 * .pi / 180) }

    public func contains(_ c: Coordinate) -> Bool {
        c.latitude >= south && c.latitude <= north && c.longitude >= west && c.longitude <= east
    }
}

/// Numbers in a query string, as docs/api.yaml's patterns spell them: an optional `-`,
/// digits, optionally `.` and digits, and (where `exponent`) `e` or `E`, an optional sign
/// and digits. `Double.init(String)` alone also takes `nan`, `inf`, `0x1p3` and `+1`.
enum DecimalText {
    static func number<S: StringProtocol>(_ text: S, exponent: Bool = true) -> Double? {
        var bytes = Substring(text).utf8[...]
        func digits() -> Bool {
            let n = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(n)
            return n > 0
        }
        if bytes.first == 0x2D { bytes = bytes.dropFirst() }  // -
        guard digits() else { return nil }
        if bytes.first == 0x2E {  // .
            bytes = bytes.dropFirst()
            guard digits() else { return nil }
        }
        if exponent, bytes.first == 0x65 || bytes.first == 0x45 {  // e E
            bytes = bytes.dropFirst()
            if bytes.first == 0x2B || bytes.first == 0x2D { bytes = bytes.dropFirst() }
            guard digits() else { return nil }
        }
        guard bytes.isEmpty, let value = Double(String(text)), value.isFinite else { return nil }
        return value
    }
}
