import BikePathAPI
import BikePathCore
import Foundation
import Logging

/// The shared map kept in the database a tile at a time (docs/hub.md, "The map in the
/// database"), so that no request waits for the whole map to be rebuilt and every
/// replica reads the same rows.
///
/// A confirmation touches the tiles of its reports, of its road-quality stretches and
/// of every step of its path. When it is indexed its evidence is added to the stored sums
/// (`MapEvidence`) and the tiles within `reachMeters` of it are marked dirty; a tile is
/// recomputed from the sums within that reach of it, by the one rule
/// (`SharedMap(evidence:)`), keeping what lies inside it. Every rule of the map is local:
/// a spot gathers reports within 15 m and is judged by the rides at its 10 m cell, a
/// path-status cell (100 m) by its own sums and the spots in it. So the union of the tiles
/// equals the whole map built at once (`MapTileEqualityTests` holds this).
public enum MapTiles {
    /// 500 m: a tile holds a few streets; its 3 × 3 neighbourhood is what one recomputation reads.
    public static let grid = MapGrid(cellMeters: 500)
    /// Every row (or column) a tile can have: the world is ~80,000 tiles of 500 m round.
    public static let everyIndex = Int(Int32.min)...Int(Int32.max)
    /// How long a replica's claim keeps the others off the dirty tiles it recomputes
    /// (PostgreSQL): one stored confirmation took 1.4 s to map on a 2,000-confirmation city
    /// and 11 s at 8,000 (docs/performance.md), so a live claim is not taken over; a replica
    /// that died mid-pass delays its tiles by at most this.
    public static let claimLease: Duration = .seconds(60)

    /// Bumped whenever the map's rule changes in code (`SharedMap.build`, `CorroborationRule`,
    /// `PathStatusRule`, what a slice holds): a hub whose tiles were made by another edition
    /// remakes every tile once (`MapMaintainer.remakeIfTheRuleChanged`).
    static let ruleRevision = 3

    /// The rule the tiles are made by: its revision and its parameters, so that a changed
    /// parameter remakes the tiles too, without anyone remembering to bump the revision.
    public static var edition: String {
        let rule = CorroborationRule(), status = PathStatusRule()
        return [
            "revision \(ruleRevision)", "radius \(rule.radiusMeters) m", "riders \(rule.minRiders)", "confidence \(rule.minConfidence)",
            "report rate \(rule.obstacleReportRate)", "false rate \(rule.falseReportRate)", "alignment \(rule.alignmentDegrees)°",
            "tile \(grid.cellMeters) m", "cell \(status.grid.cellMeters) m",
        ].joined(separator: ", ")
    }

    /// How far a confirmation's evidence reaches beyond the tile it lies in. A 100 m
    /// path-status cell is kept by the tile of its centre (≤ 71 m from a stretch's midpoint
    /// in it) and counts the spots in it; a spot by the tile of its centre (its reports
    /// within 15 m of it, its rides those within 15 m of its 10 m cell); a link takes the
    /// obstacles within 15 m of it. 150 m leaves room for a chain of reports to move a
    /// spot's centre; `MapTileEqualityTests` holds the tiles equal to the whole map.
    static let reachMeters = 150.0

    /// What indexing a confirmation stores: the tiles it touches, those it dirties and its
    /// evidence; none when it is not confirmed; nil when it does not decode (the map leaves
    /// it out, as `SharedMap.build` does, and the maintainer says so).
    public static func entry(for confirmation: IndexableConfirmation) -> MapIndexEntry? {
        guard let upload = confirmation.decoded else { return nil }
        return entry(for: confirmation, upload)
    }

    /// `entry(for:)` of a confirmation already decoded.
    static func entry(for confirmation: IndexableConfirmation, _ upload: ConfirmationUpload) -> MapIndexEntry {
        guard upload.confirmed else { return MapIndexEntry(confirmation: confirmation, tiles: [], dirty: [], evidence: MapEvidence()) }
        return MapIndexEntry(
            confirmation: confirmation, tiles: touched(by: upload.draft), dirty: dirtied(by: upload.draft),
            evidence: MapEvidence.trip(confirmation.device, upload.draft, rule: CorroborationRule(), pathStatus: PathStatusRule()))
    }

    /// The tiles a confirmed trip touches: those of its reports, of its stretches' midpoints
    /// and of its path.
    static func touched(by draft: DraftUpload) -> Set<MapGrid.Cell> {
        // Steps of a quarter tile: no tile the path crosses is skipped.
        Set(places(of: draft, step: grid.cellMeters / 4).map(grid.cell(of:)))
    }

    /// The tiles whose slices a confirmed trip can change: every tile within `reachMeters`
    /// of its reports, stretches and path. Before, the whole 3 × 3 neighbourhood of every
    /// tile touched: a 2.6 km ride dirtied 19–30 tiles, each remade (docs/performance.md).
    static func dirtied(by draft: DraftUpload) -> Set<MapGrid.Cell> {
        // Path points lie within half a step of a place: the reach grows by that much.
        let step = 50.0
        var steps = MapGrid.RowSteps(grid)
        var (dirty, last) = (Set<MapGrid.Cell>(), [MapGrid.Cell]())
        for place in places(of: draft, step: step) {
            // Places 50 m apart mostly reach the tiles of the last.
            let reached = tiles(around: place, meters: reachMeters + step / 2, &steps)
            if reached != last { dirty.formUnion(reached) }
            last = reached
        }
        return dirty
    }

    /// Whether reports at `position` lie within `reachMeters` of one of `tiles`: only then
    /// can they change those tiles' slices. A remake reads the reports of its tiles'
    /// neighbourhoods (1.5 km across each), and clustering all of them was the part of a
    /// remake that grew with the data (docs/performance.md).
    static func reaches(_ tiles: Set<MapGrid.Cell>, _ position: Coordinate) -> Bool {
        Self.tiles(around: position, meters: reachMeters).contains(where: tiles.contains)
    }

    /// Where the reports that can change the slices of `dirty` are stored: each tile of
    /// their neighbourhoods, cut to the 10 m report cells within `reachMeters` of a dirty
    /// tile (what `reaches` keeps, and two cells more). A neighbour is read a strip
    /// deep, not whole: at 10× the city, reading whole neighbourhoods (30–35 tiles for one
    /// ride) was most of a remake, for ~15 % of the rows kept (docs/performance.md).
    static func reportWindows(around dirty: Set<MapGrid.Cell>) -> [ReportWindow] {
        let margin = reachMeters + 2 * MapEvidence.grid.cellMeters
        var boxes: [MapGrid.Cell: Part] = [:]
        for d in dirty {
            let b = grid.bounds(of: d)
            // Degrees of longitude at the latitude where they are longest: a box that holds
            // every point `reaches` keeps, whichever latitude it is at.
            let dLat = margin / MapGrid.metresPerDegree
            let dLon = dLat / max(0.01, cos((max(abs(b.south), abs(b.north)) + dLat) * .pi / 180))
            for tile in neighbourhood(of: d) {
                let t = grid.bounds(of: tile)
                let cut = (
                    south: max(t.south, b.south - dLat), west: max(t.west, b.west - dLon), north: min(t.north, b.north + dLat),
                    east: min(t.east, b.east + dLon)
                )
                guard cut.south < cut.north, cut.west < cut.east else { continue }
                boxes[tile] =
                    boxes[tile].map {
                        (min($0.south, cut.south), min($0.west, cut.west), max($0.north, cut.north), max($0.east, cut.east))
                    } ?? cut
            }
        }
        return boxes.keys.sorted().map { window(of: $0, over: boxes[$0]!) }
    }

    /// Where the reports inside `box` are stored (what a heatmap answer reads): each tile
    /// under it, cut to the box's 10 m report cells.
    public static func reportWindows(in box: BoundingBox) -> [ReportWindow] {
        tiles(in: box).compactMap { tile in
            let t = grid.bounds(of: tile)
            let cut = (
                south: max(t.south, box.south), west: max(t.west, box.west), north: min(t.north, box.north), east: min(t.east, box.east)
            )
            return cut.south <= cut.north && cut.west <= cut.east ? window(of: tile, over: cut) : nil
        }
    }

    /// A part of a tile, in degrees.
    private typealias Part = (south: Double, west: Double, north: Double, east: Double)

    /// The report cells of `tile` under `box` (a part of the tile).
    private static func window(of tile: MapGrid.Cell, over box: Part) -> ReportWindow {
        let cells = MapEvidence.grid
        let sw = cells.cell(of: Coordinate(latitude: box.south, longitude: box.west))
        let nw = cells.cell(of: Coordinate(latitude: box.north, longitude: box.west))
        let se = cells.cell(of: Coordinate(latitude: box.south, longitude: box.east))
        let ne = cells.cell(of: Coordinate(latitude: box.north, longitude: box.east))
        // One cell more each way: a cell is stored under the tile of its centre, which
        // may lie just inside the tile while the cell reaches over its border.
        return ReportWindow(
            tile: tile, rows: (sw.row - 1)...(nw.row + 1), columns: (min(sw.column, nw.column) - 1)...(max(se.column, ne.column) + 1))
    }

    /// The tiles holding a point within `meters` (less than a tile) of `p`, north-south and east-west.
    private static func tiles(around p: Coordinate, meters: Double) -> [MapGrid.Cell] {
        var steps = MapGrid.RowSteps(grid)
        return tiles(around: p, meters: meters, &steps)
    }

    private static func tiles(around p: Coordinate, meters: Double, _ steps: inout MapGrid.RowSteps) -> [MapGrid.Cell] {
        let dLat = meters / MapGrid.metresPerDegree, dLon = dLat / max(0.01, cos(p.latitude * .pi / 180))
        return tiles(
            in: BoundingBox(west: p.longitude - dLon, south: p.latitude - dLat, east: p.longitude + dLon, north: p.latitude + dLat),
            &steps)
    }

    /// A trip's reports, its stretches' midpoints and its path's points at most `step` apart.
    private static func places(of draft: DraftUpload, step: Double) -> [Coordinate] {
        var places = draft.obstacles.compactMap { o in o.position.map { Coordinate(latitude: $0.lat, longitude: $0.lon) } }
        for r in draft.roadQuality {
            guard let a = r.start, let b = r.end else { continue }
            places.append(Coordinate(latitude: (a.lat + b.lat) / 2, longitude: (a.lon + b.lon) / 2))
        }
        let path = draft.path.compactMap { $0.count == 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil }
        for (a, b) in zip(path, path.dropFirst()) {
            // A segment longer than 50 km (a gap across a privacy zone, a forged path) marks its ends.
            let steps = Geodesic.distance(a, b) > 50_000 ? 1 : max(1, Int((Geodesic.distance(a, b) / step).rounded(.up)))
            for k in 0...steps {
                let t = Double(k) / Double(steps)
                places.append(Geodesic.interpolate(a, b, t))
            }
        }
        if path.count == 1 { places.append(path[0]) }
        return places
    }

    /// The tile and every tile within one tile's width of it.
    public static func neighbourhood(of tile: MapGrid.Cell) -> [MapGrid.Cell] {
        let b = grid.bounds(of: tile)
        let dLat = b.north - b.south, dLon = b.east - b.west
        return tiles(in: BoundingBox(west: b.west - dLon, south: b.south - dLat, east: b.east + dLon, north: b.north + dLat))
    }

    /// How many tiles `tiles(in:)` lists, counted row by row without listing them; once
    /// past `limit`, some number above it.
    static func tileCount(in box: BoundingBox, limit: Int) -> Int {
        let (south, north) = (grid.row(of: box.south), grid.row(of: box.north))
        var count = 0
        for row in south...max(south, north) {
            let step = grid.longitudeStep(row: row)
            count += max(0, grid.column(of: box.east, step: step) - grid.column(of: box.west, step: step)) + 1
            if count > limit { return count }
        }
        return count
    }

    /// Every tile that overlaps `box`.
    public static func tiles(in box: BoundingBox) -> [MapGrid.Cell] {
        var steps = MapGrid.RowSteps(grid)
        return tiles(in: box, &steps)
    }

    static func tiles(in box: BoundingBox, _ steps: inout MapGrid.RowSteps) -> [MapGrid.Cell] {
        let (south, north) = (grid.row(of: box.south), grid.row(of: box.north))
        var tiles: [MapGrid.Cell] = []
        for row in south...max(south, north) {
            let step = steps.longitudeStep(row: row)
            let west = grid.column(of: box.west, step: step), east = grid.column(of: box.east, step: step)
            for column in west...max(west, east) { tiles.append(MapGrid.Cell(row: row, column: column)) }
        }
        return tiles
    }

    /// The rows and columns to read for `box` (columns widest over its rows).
    public static func range(of box: BoundingBox) -> (rows: ClosedRange<Int>, columns: ClosedRange<Int>) {
        let tiles = tiles(in: box)
        let rows = tiles.map(\.row), columns = tiles.map(\.column)
        return (rows.min()!...rows.max()!, columns.min()!...columns.max()!)
    }

    /// The part of `map` inside `tile` that an answer may read: its corroborated spots (the
    /// others, most of them single false reports, grow with the data and are never
    /// answered) and its cells; `map` built from (at least) the evidence within reach of
    /// the tile. Not its reports: the heatmap reads them from the stored sums
    /// (`reportWindows(in:)`); kept in the slice, every rider's reports were encoded again
    /// with each remake of the tile, a cost that grew with the data (docs/performance.md).
    public static func slice(_ tile: MapGrid.Cell, of map: SharedMap) -> MapSlice {
        let inside = { (c: Coordinate) in grid.cell(of: c) == tile }
        return MapSlice(
            obstacles: map.obstacles.filter { $0.corroborated && inside($0.position) },
            cells: map.cells.filter { inside(map.pathStatus.grid.centre(of: $0.cell)) })
    }
}

/// One tile of the shared map as stored (`map_tiles.slice`): its corroborated spots and its
/// path-status cells (by centre). Never answered as is.
public struct MapSlice: Codable, Sendable, Equatable {
    public var obstacles: [ReportedObstacle]
    public var cells: [CellStatus]

    public init(obstacles: [ReportedObstacle], cells: [CellStatus]) { (self.obstacles, self.cells) = (obstacles, cells) }

    /// A stored slice, decoded (one made by an older edition may hold more: its reports; the
    /// pass remakes it by this one).
    public static func decoded(_ data: Data) throws -> MapSlice { try JSONDecoder().decode(MapSlice.self, from: data) }
}

extension SharedMap {
    /// The map assembled from stored tiles (`MapTiles`): what the obstacle, status and route
    /// answers read (the heatmap reads the stored reports: `init(reportsOf:)`).
    public init(slices: [MapSlice], corroboration: CorroborationRule = CorroborationRule(), pathStatus: PathStatusRule = PathStatusRule()) {
        self.init(
            obstacles: slices.flatMap(\.obstacles), cells: slices.flatMap(\.cells), reports: [],
            pathStatus: pathStatus, minRiders: corroboration.minRiders)
    }
}
