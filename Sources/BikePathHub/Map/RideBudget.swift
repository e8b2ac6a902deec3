import BikePathAPI
import BikePathCore

/// What one ride may cost the map, in the units of the work that indexing it does (docs/hub.md,
/// "Upload budget"). Checked on every draft and confirmation at upload, before anything is
/// stored: a stored record is indexed again after every restart, so one that cannot be
/// indexed within bounds must never be stored. A 66 KB path around the North Pole grew the
/// maintainer to 3 GB and was killed, and every restart indexed it again; a 348 KB zigzag of
/// 1.99 km steps took 19 s of its CPU.
public enum RideBudget {
    /// Every position within ±85° of the equator. Beyond, a 10 m cell's column is a sliver
    /// of a degree that the grid cannot hold (cos 85° = 0.087; at the pole a column would span
    /// the world); the northernmost town with streets to ride, Longyearbyen, is at 78.2° N.
    public static let maxLatitude = 85.0
    /// The path's length, gaps included. Paris–Brest–Paris, 1,200 km, is the longest ride a
    /// rider records as one trip.
    public static let maxPathKm = 1_500.0
    /// 10 m cells measured for the ride's passes (`MapEvidence.addRides`): about 1.1–1.3 a
    /// metre of path, so 1,500 km of straight riding measures ~2 M. A path of many short
    /// steps costs more per metre (each step's cells are measured on their own).
    public static let maxCellsMeasured = 3_000_000
    /// 500 m map tiles the ride dirties (`MapTiles.dirtied`), each remade: 1,500 km of path
    /// dirties ~6,000–9,000 (a band of 1–3 tiles along it).
    public static let maxTilesDirtied = 12_000

    /// The budget's problems for `draft`, each as "field: why" (empty when within it). Cheap
    /// for a ride within budget; each measure stops once its limit is passed. Without
    /// `tiles`, the tiles are left to the caller (indexing counts them as it lists them).
    static func problems(_ draft: DraftUpload, prefix: String, tiles: Bool = true) -> [String] {
        var problems: [String] = []
        func beyond(_ lat: Double) -> Bool { abs(lat) > maxLatitude }
        let polar =
            draft.path.firstIndex { $0.count == 2 && beyond($0[0]) }.map { "path[\($0)]" }
            ?? draft.obstacles.firstIndex { $0.position.map { beyond($0.lat) } ?? false }.map { "obstacles[\($0)]" }
            ?? draft.roadQuality.firstIndex { r in [r.start, r.end].contains { $0.map { beyond($0.lat) } ?? false } }
            .map { "road_quality[\($0)]" }
        if let field = polar {
            problems.append(
                "\(prefix)\(field): beyond ±\(Int(maxLatitude))° of latitude; the map indexes rides within ±\(Int(maxLatitude))°")
            // The measures below would read the grid beyond its range.
            return problems
        }
        let path = draft.path.compactMap { $0.count == 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil }
        var metres = 0.0
        for (a, b) in zip(path, path.dropFirst()) {
            metres += Geodesic.distance(a, b)
            if metres > maxPathKm * 1000 { break }
        }
        if metres > maxPathKm * 1000 {
            problems.append("\(prefix)path: longer than \(Int(maxPathKm)) km; the map indexes rides of at most \(Int(maxPathKm)) km")
            return problems
        }
        let cells = MapEvidence.cellsMeasured(along: path, rule: CorroborationRule(), limit: maxCellsMeasured)
        if cells > maxCellsMeasured {
            problems.append(
                "\(prefix)path: its passes measure more than \(maxCellsMeasured) map cells of 10 m; the map indexes at most that many a ride"
            )
            return problems
        }
        if tiles, let problem = tilesProblem(MapTiles.dirtied(by: draft).count, prefix: prefix) { problems.append(problem) }
        return problems
    }

    static func tilesProblem(_ tiles: Int, prefix: String) -> String? {
        guard tiles > maxTilesDirtied else { return nil }
        return
            "\(prefix)path: it reaches \(tiles) map tiles of 500 m with its path, obstacles and road quality; the map indexes at most \(maxTilesDirtied) a ride"
    }
}
