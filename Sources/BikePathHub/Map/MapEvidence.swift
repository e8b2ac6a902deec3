import BikePathAPI
import BikePathCore
import Foundation

/// What confirmed trips say about the map, kept as sums (docs/hub.md, "The map's evidence"):
/// the rides over each 10 m cell by heading, the obstacle reports by cell, heading, kind and
/// rider, and the road-quality lengths by 100 m cell, status and rider. A trip's evidence is
/// computed from that trip alone and the map's is the sum of its trips': a new ride adds to
/// the cells it touches, whatever was stored before, and the spots, their confidence and the
/// path status are read off the sums of a neighbourhood (`CorroborationRule.corroborate`,
/// `PathStatusRule.statuses`). So the work of a new confirmation does not grow with the
/// rides on its streets (the reports are still kept per rider: docs/hub.md). Every sum is an integer: added in any order or grouping, they are
/// equal to the last bit (floating sums differ in theirs), so the map kept ride by ride
/// equals the map computed at once.
public struct MapEvidence: Sendable, Equatable {
    /// 10 m: a spot's rides are counted at its cell's centre, at most 7 m from the spot, and a
    /// rider along its street rides within GNSS error (~5 m) of it, well inside the 15 m radius.
    public static let grid = MapGrid(cellMeters: 10)
    /// Axial headings (0…180°) in 15° sectors: a spot's street takes the sectors within 30° of
    /// its axis; streets cross at 60–90°.
    public static let sectors = 12
    static let sectorDegrees = 180.0 / Double(sectors)
    /// Sums of positions in 1e-7 degree (~1 cm), of axes in millionths.
    static let degreeUnits = 1e7, axisUnits = 1e6
    /// A step of a path longer than this is a gap (a privacy zone, a tunnel, a forged path),
    /// not a ride: it adds no rides. A straight street simplified to its two ends is shorter.
    static let longestRiddenStep = 5_000.0

    /// Rides over a cell's centre in one sector (`addRides`).
    public struct PassKey: Hashable, Sendable, Comparable {
        public var cell: MapGrid.Cell
        public var sector: Int
        public init(cell: MapGrid.Cell, sector: Int) { (self.cell, self.sector) = (cell, sector) }
        public static func < (a: Self, b: Self) -> Bool { (a.cell, a.sector) < (b.cell, b.sector) }
    }

    /// Reports of one kind by one rider in one cell, made riding in one sector (-1: the
    /// trip turned there, or sent no path: unknown).
    public struct ReportKey: Hashable, Sendable, Comparable {
        public var cell: MapGrid.Cell
        public var sector: Int
        public var kind: String
        public var device: String
        public init(cell: MapGrid.Cell, sector: Int, kind: String, device: String) {
            (self.cell, self.sector, self.kind, self.device) = (cell, sector, kind, device)
        }
        public static func < (a: Self, b: Self) -> Bool {
            (a.cell, a.sector, a.kind, a.device) < (b.cell, b.sector, b.kind, b.device)
        }
    }

    public struct ReportTally: Sendable, Equatable {
        public var count: Int
        /// Sums of the reports' latitudes and longitudes, in 1e-7 degree.
        public var latitude: Int64
        public var longitude: Int64
        /// Sums of the doubled angles' cosines and sines of the reports' directions, in millionths
        /// (an axial mean: 10° and 190° agree); zero for unknown directions.
        public var axisX: Int64
        public var axisY: Int64
        public var firstDay: Int?
        public var lastDay: Int?

        /// The reports' mean position.
        public var position: Coordinate {
            Coordinate(
                latitude: Double(latitude) / Double(count) / MapEvidence.degreeUnits,
                longitude: Double(longitude) / Double(count) / MapEvidence.degreeUnits)
        }

        public mutating func add(_ o: ReportTally) {
            count += o.count
            latitude += o.latitude
            longitude += o.longitude
            axisX += o.axisX
            axisY += o.axisY
            // Without arrays: `[a, b].compactMap { $0 }.min()` allocated twice per add, 7 % of a
            // remake at 100× the city.
            if let d = o.firstDay, firstDay.map({ d < $0 }) ?? true { firstDay = d }
            if let d = o.lastDay, lastDay.map({ d > $0 }) ?? true { lastDay = d }
        }
    }

    /// Road-quality length of one status by one rider in one path-status cell (100 m).
    public struct StretchKey: Hashable, Sendable, Comparable {
        public var cell: MapGrid.Cell
        public var status: PathStatus
        public var device: String
        public init(cell: MapGrid.Cell, status: PathStatus, device: String) {
            (self.cell, self.status, self.device) = (cell, status, device)
        }
        public static func < (a: Self, b: Self) -> Bool {
            (a.cell, a.status.rawValue, a.device) < (b.cell, b.status.rawValue, b.device)
        }
    }

    /// A path-status cell's sums: road-quality length by status (mm) and its distinct riders.
    /// What a store keeps per cell: the riders as a count beside a set that only indexing
    /// reads (a new rider adds one), so reading a cell does not grow with its riders.
    public struct StatusCell: Sendable, Equatable {
        public var lengths: [PathStatus: Int64]
        public var riders: Int
        public init(lengths: [PathStatus: Int64], riders: Int) { (self.lengths, self.riders) = (lengths, riders) }
    }

    /// The path-status cells of `stretches`.
    public var statusCells: [MapGrid.Cell: StatusCell] {
        var riders: [MapGrid.Cell: Set<String>] = [:]
        var cells: [MapGrid.Cell: StatusCell] = [:]
        for (key, length) in stretches {
            cells[key.cell, default: StatusCell(lengths: [:], riders: 0)].lengths[key.status, default: 0] += length
            riders[key.cell, default: []].insert(key.device)
        }
        for (cell, devices) in riders { cells[cell]!.riders = devices.count }
        return cells
    }

    public var passes: [PassKey: Int] = [:]
    public var reports: [ReportKey: ReportTally] = [:]
    /// Millimetres.
    public var stretches: [StretchKey: Int64] = [:]

    public init() {}

    public mutating func add(_ other: MapEvidence) {
        passes.merge(other.passes, uniquingKeysWith: +)
        for (k, v) in other.reports {
            if reports[k] == nil { reports[k] = v } else { reports[k]!.add(v) }
        }
        for (k, v) in other.stretches { stretches[k, default: 0] += v }
    }

    /// The map tile (`MapTiles.grid`) a report cell's sums are stored under: that of its centre.
    public static func tile(ofReportCell cell: MapGrid.Cell) -> MapGrid.Cell { MapTiles.grid.cell(of: grid.centre(of: cell)) }
    /// The map tile a path-status cell's sums are stored under: that of its centre.
    public static func tile(ofStretchCell cell: MapGrid.Cell) -> MapGrid.Cell {
        MapTiles.grid.cell(of: PathStatusRule().grid.centre(of: cell))
    }

    static func sector(of heading: Double) -> Int { min(sectors - 1, max(0, Int(heading / sectorDegrees))) }

    /// One report, its direction (`CorroborationRule.direction`) when known.
    public mutating func add(_ report: ObstacleReport, direction: Double?) {
        let key = ReportKey(
            cell: Self.grid.cell(of: report.position), sector: direction.map(Self.sector(of:)) ?? -1, kind: report.kind,
            device: report.device)
        let angle = direction.map { 2 * $0 * .pi / 180 }
        let tally = ReportTally(
            count: 1, latitude: Int64((report.position.latitude * Self.degreeUnits).rounded()),
            longitude: Int64((report.position.longitude * Self.degreeUnits).rounded()),
            axisX: angle.map { Int64((cos($0) * Self.axisUnits).rounded()) } ?? 0,
            axisY: angle.map { Int64((sin($0) * Self.axisUnits).rounded()) } ?? 0, firstDay: report.day, lastDay: report.day)
        if reports[key] == nil { reports[key] = tally } else { reports[key]!.add(tally) }
    }

    /// One road-quality stretch, in the path-status cell of its midpoint.
    public mutating func add(_ stretch: StretchReport, grid: MapGrid) {
        guard stretch.lengthMeters > 0 else { return }
        let key = StretchKey(cell: grid.cell(of: stretch.midpoint), status: stretch.status, device: stretch.device)
        stretches[key, default: 0] += Int64((stretch.lengthMeters * 1000).rounded())
    }

    /// One trip's rides over every cell centre within `rule.radiusMeters` of `path`: for each
    /// cell, each run of consecutive steps that ride over its centre (it lies within the radius
    /// and projects onto them) without turning back counts once, in the sector of the run's
    /// step nearest to the centre. A trip out and back rides over a cell twice; a trip turning
    /// at a crossing rides over the cells near it once along each street.
    public mutating func addRides(of path: [Coordinate], rule: CorroborationRule) {
        let grid = Self.grid
        let radius2 = rule.radiusMeters * rule.radiusMeters
        // Each step that rides over a cell's centre, with how it is seen from there: in one flat
        // array, ordered by cell and step below. A dictionary of arrays by cell was a third
        // of a confirmation's evidence (hashing each of ~1,000 cells a ride, an array each).
        var over: [(cell: MapGrid.Cell, step: Int, distance2: Double, dx: Double, dy: Double)] = []
        over.reserveCapacity(path.count * 8)
        for step in Self.riddenSteps(of: path) {
            let (a, b) = (step.a, step.b)
            // Metres per degree east at the step (within 1e-5 over the 5 km a step may span).
            let eastPerDegree = MapGrid.metresPerDegree * cos((a.latitude + b.latitude) / 2 * .pi / 180)
            var measured = Set<MapGrid.Cell>()
            for k in 0..<step.pieces {
                let (p0, p1) = step.piece(k)
                for (cell, centre) in grid.cells(around: p0, p1, within: rule.radiusMeters)
                where step.pieces == 1 || measured.insert(cell).inserted {
                    guard let s = CorroborationRule.seen(a, b, from: centre, eastPerDegree: eastPerDegree), s.t >= 0, s.t <= 1,
                        s.distance2 <= radius2
                    else {
                        continue
                    }
                    over.append((cell, step.index, s.distance2, s.dx, s.dy))
                }
            }
        }
        // A cell appears once per step: (cell, step) orders them fully, each cell's in path order.
        over.sort { ($0.cell, $0.step) < ($1.cell, $1.step) }
        // Room for a pass of each cell at once (growing the dictionary was a tenth of a ride's evidence).
        passes.reserveCapacity(passes.count + zip(over, over.dropFirst()).count { $0.cell != $1.cell } + 1)
        var start = over.startIndex
        while start < over.endIndex {
            let cell = over[start].cell
            var end = start
            while end < over.endIndex, over[end].cell == cell { end += 1 }
            // Runs of consecutive steps that do not turn back, each counted in the sector of its
            // step nearest the centre (the first of equals); the heading only for that one.
            var run = over[start]
            func count() {
                passes[PassKey(cell: cell, sector: Self.sector(of: CorroborationRule.axialHeading(run.dx, run.dy))), default: 0] += 1
            }
            var (last, dx, dy) = (run.step, run.dx, run.dy)
            for s in over[(start + 1)..<end] {
                if last == s.step - 1, dx * s.dx + dy * s.dy > 0 {
                    if s.distance2 < run.distance2 { run = s }
                } else {
                    count()
                    run = s
                }
                (last, dx, dy) = (s.step, s.dx, s.dy)
            }
            count()
            start = end
        }
    }

    /// A step of a path that counts as ridden, `b` in `a`'s frame: across the antimeridian its
    /// longitude runs past ±180, so that the step's cells are those along its few metres, not
    /// a row of the whole world's.
    struct RiddenStep {
        var index: Int
        var a: Coordinate, b: Coordinate
        var length: Double
        /// Pieces of at most 50 m: the cells around each are listed (a long diagonal step's
        /// bounding box would hold thousands of cells far from it), each measured once.
        var pieces: Int { max(1, Int((length / 50).rounded(.up))) }
        func piece(_ k: Int) -> (Coordinate, Coordinate) {
            let (t0, t1) = (Double(k) / Double(pieces), Double(k + 1) / Double(pieces))
            func at(_ t: Double) -> Coordinate {
                Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
            }
            return (at(t0), at(t1))
        }
    }

    /// The steps of `path` that add rides: not a standstill, not a gap (`longestRiddenStep`).
    static func riddenSteps(of path: [Coordinate]) -> [RiddenStep] {
        var steps: [RiddenStep] = []
        steps.reserveCapacity(path.count)
        for (i, (a, far)) in zip(path, path.dropFirst()).enumerated() {
            let b = Coordinate(
                latitude: far.latitude, longitude: a.longitude + Geodesic.longitudeDelta(from: a.longitude, to: far.longitude))
            let length = Geodesic.distance(a, b)
            if length > 0, length <= longestRiddenStep { steps.append(RiddenStep(index: i, a: a, b: b, length: length)) }
        }
        return steps
    }

    /// The cells `addRides` measures for `path` (the work of its rides), counted without
    /// measuring them; once past `limit`, some number above it.
    static func cellsMeasured(along path: [Coordinate], rule: CorroborationRule, limit: Int) -> Int {
        var count = 0
        for step in riddenSteps(of: path) {
            for k in 0..<step.pieces {
                let (p0, p1) = step.piece(k)
                count += grid.cellCount(around: p0, p1, within: rule.radiusMeters, limit: limit - count)
                if count > limit { return count }
            }
        }
        return count
    }

    /// The evidence of one trip: its reports (each with the direction its own path rode
    /// there), its rides and its stretches (the reports and stretches name their device).
    public static func trip(
        reports: [ObstacleReport], path: [Coordinate], stretches: [StretchReport], rule: CorroborationRule,
        pathStatus: PathStatusRule
    ) -> MapEvidence {
        var evidence = MapEvidence()
        for r in reports { evidence.add(r, direction: path.isEmpty ? nil : rule.direction(of: path, at: r.position)) }
        evidence.addRides(of: path, rule: rule)
        for s in stretches { evidence.add(s, grid: pathStatus.grid) }
        return evidence
    }

    /// The evidence of one confirmed trip as uploaded.
    public static func trip(_ device: String, _ draft: DraftUpload, rule: CorroborationRule, pathStatus: PathStatusRule) -> MapEvidence {
        let day = draft.trip.startUtcNs.map { Int($0 / 86_400_000_000_000) }
        let reports = draft.obstacles.compactMap { o -> ObstacleReport? in
            guard let p = o.position else { return nil }  // no position: it lay in a privacy zone
            return ObstacleReport(
                device: device, trip: draft.trip.id, kind: o.kind, position: Coordinate(latitude: p.lat, longitude: p.lon), day: day)
        }
        let path = draft.path.compactMap { $0.count == 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil }
        let stretches = draft.roadQuality.compactMap { r -> StretchReport? in
            guard let a = r.start, let b = r.end, let status = PathStatus(rawValue: r.status) else { return nil }
            return StretchReport(
                device: device, midpoint: Coordinate(latitude: (a.lat + b.lat) / 2, longitude: (a.lon + b.lon) / 2),
                lengthMeters: r.lengthM, status: status)
        }
        return trip(reports: reports, path: path, stretches: stretches, rule: rule, pathStatus: pathStatus)
    }
}

extension MapGrid {
    /// The rows and, per row, the columns of the cells whose centre may lie within `metres`
    /// of the segment from `a` to `b`: those of its bounding box grown by `metres` and half a
    /// cell's diagonal. `each` gets a row, its column width and its first and last column.
    private func spans(around a: Coordinate, _ b: Coordinate, within metres: Double, _ each: (Int, Double, Int, Int) -> Bool) {
        let margin = metres + cellMeters * 0.71
        let dLat = margin / Self.metresPerDegree
        let south = Int(((min(a.latitude, b.latitude) - dLat) / latitudeStep).rounded(.down))
        let north = Int(((max(a.latitude, b.latitude) + dLat) / latitudeStep).rounded(.down))
        for row in south...north {
            let step = longitudeStep(row: row)
            let dLon = margin / cellMeters * step
            let west = Int(((min(a.longitude, b.longitude) - dLon) / step).rounded(.down))
            let east = Int(((max(a.longitude, b.longitude) + dLon) / step).rounded(.down))
            guard each(row, step, west, east) else { return }
        }
    }

    /// Every cell whose centre may lie within `metres` of the segment from `a` to `b`.
    func cells(around a: Coordinate, _ b: Coordinate, within metres: Double) -> [(cell: Cell, centre: Coordinate)] {
        // Labelled as returned: an unlabelled array was cast element by element on return.
        var cells: [(cell: Cell, centre: Coordinate)] = []
        spans(around: a, b, within: metres) { row, step, west, east in
            let latitude = (Double(row) + 0.5) * latitudeStep
            for column in west...east {
                cells.append((Cell(row: row, column: column), Coordinate(latitude: latitude, longitude: (Double(column) + 0.5) * step)))
            }
            return true
        }
        return cells
    }

    /// How many cells `cells(around:_:within:)` lists, counted without listing them; once
    /// past `limit`, some number above it (what a budget needs to know, at a row's cost).
    func cellCount(around a: Coordinate, _ b: Coordinate, within metres: Double, limit: Int) -> Int {
        var count = 0
        spans(around: a, b, within: metres) { _, _, west, east in
            count += east - west + 1
            return count <= limit
        }
        return count
    }
}
