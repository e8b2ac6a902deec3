import BikePathCore
import Foundation
import GRDB

/// Where the street map under a draft's path comes from (docs/review.md, "Street map").
public enum StreetMap: Sendable, Equatable {
    /// No street map: the path alone, to scale, with start, end, north and a scale bar.
    case none
    /// Raster tiles the phone's browser loads itself from `template` (`{z}`, `{x}`, `{y}`),
    /// e.g. `https://tile.openstreetmap.org/{z}/{x}/{y}.png`. The tile server learns the
    /// phone's address and which tiles it asked for, i.e. where the ride went.
    case tiles(template: String, attribution: String, maxZoom: Int)
    /// An MBTiles file (SQLite, raster tiles) on the device, served by the page itself at
    /// `/tiles/Z/X/Y`: nothing leaves the device.
    case mbtiles(MBTiles, attribution: String)

    public var attribution: String? {
        switch self {
        case .none: nil
        case .tiles(_, let attribution, _), .mbtiles(_, let attribution): attribution
        }
    }
}

/// A read-only MBTiles file (the MBTiles 1.3 spec: table `tiles`, rows counted from the
/// south as in TMS, `metadata` with `format` and `maxzoom`).
public final class MBTiles: Sendable, Equatable {
    public static func == (a: MBTiles, b: MBTiles) -> Bool { a.path == b.path }

    /// Why an MBTiles file cannot be used, in a sentence.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case cannotOpen(String, reason: String)
        case notRaster(String, format: String)

        public var description: String {
            switch self {
            case .cannotOpen(let path, let reason): "the MBTiles file \(path) cannot be read (\(reason))"
            case .notRaster(let path, let format):
                "the MBTiles file \(path) holds \(format) tiles; the review page draws raster tiles only (png, jpg or webp)"
            }
        }
    }

    public let path: String
    /// The Content-Type of its tiles.
    public let contentType: String
    /// The deepest zoom level it holds: a closer view scales these tiles up.
    public let maxZoom: Int
    let queue: DatabaseQueue

    /// - Throws: `Problem` when the file cannot be opened read-only or holds vector tiles.
    public init(path: String) throws(Problem) {
        self.path = path
        var configuration = Configuration()
        configuration.readonly = true
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration)
            let (format, maxZoom) = try queue.read { db -> (String, Int?) in
                let format = try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'format'") ?? "png"
                // The spec's metadata first; a file without it is asked what it holds.
                let zoom =
                    try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE name = 'maxzoom'").flatMap { Int($0) }
                    ?? Int.fetchOne(db, sql: "SELECT MAX(zoom_level) FROM tiles")
                return (format.lowercased(), zoom)
            }
            let types = ["png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp"]
            guard let type = types[format] else { throw Problem.notRaster(path, format: format) }
            contentType = type
            self.maxZoom = maxZoom ?? 0
        } catch let problem as Problem {
            throw problem
        } catch {
            throw .cannotOpen(path, reason: "\(error)")
        }
    }

    /// The tile at z/x/y (XYZ, rows from the north, as the page asks), or nil when the file has none.
    public func tile(z: Int, x: Int, y: Int) throws -> Data? {
        guard (0...30).contains(z) else { return nil }
        return try queue.read { db in try Self.tile(db, z: z, x: x, y: y) }
    }

    /// `tile(z:x:y:)` read off the caller's thread (the page's tile route).
    public func tile(z: Int, x: Int, y: Int) async throws -> Data? {
        guard (0...30).contains(z) else { return nil }
        return try await queue.read { db in try Self.tile(db, z: z, x: x, y: y) }
    }

    private static func tile(_ db: Database, z: Int, x: Int, y: Int) throws -> Data? {
        let row = (1 << z) - 1 - y  // MBTiles counts rows from the south
        return try Data.fetchOne(
            db, sql: "SELECT tile_data FROM tiles WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
            arguments: [z, x, row])
    }
}

/// The street tiles under a draft's map: Web Mercator tiles at the zoom level whose
/// scale is the largest not above the map's (`PathProjection.scale`), drawn 1 to 2 times
/// their 256 px so they match the map exactly. Web Mercator is conformal, so over a
/// ride's few kilometres it agrees with the map's equirectangular plane to within a
/// pixel (`RenderingTests.tilesLineUpWithThePath` measures it).
public struct TileLayer: Sendable, Equatable {
    public struct Tile: Sendable, Equatable {
        public let z: Int, x: Int, y: Int
        /// Canvas position and side, in map units (CSS px).
        public let left: Double, top: Double, size: Double
    }

    /// Earth's circumference at the equator in Web Mercator (EPSG:3857), metres.
    static let circumference = 40_075_016.686
    public let zoom: Int
    /// Canvas units per Web Mercator pixel at `zoom`.
    public let factor: Double
    let originPixel: (x: Double, y: Double)
    let canvas: (width: Double, height: Double)

    public static func == (a: Self, b: Self) -> Bool { a.zoom == b.zoom && a.factor == b.factor && a.canvas == b.canvas }

    public init(_ p: PathProjection, maxZoom: Int) {
        let latitude = p.origin.latitude * .pi / 180
        let pixelsPerMetreAtZero = 256 / (Self.circumference * cos(latitude))
        let wanted = log2(p.scale / pixelsPerMetreAtZero)
        zoom = min(max(Int(floor(wanted)), 0), max(maxZoom, 0))
        factor = p.scale / (pixelsPerMetreAtZero * pow(2, Double(zoom)))
        originPixel = Self.pixel(p.origin, zoom: zoom)
        canvas = (p.width, p.height)
    }

    /// The global Web Mercator pixel of a coordinate at `zoom`.
    static func pixel(_ c: Coordinate, zoom: Int) -> (x: Double, y: Double) {
        let world = 256 * pow(2, Double(zoom))
        let phi = c.latitude * .pi / 180
        return ((c.longitude + 180) / 360 * world, (1 - log(tan(phi) + 1 / cos(phi)) / .pi) / 2 * world)
    }

    /// Where a coordinate falls on the canvas by the tiles' geometry (to check it against the map's).
    public func point(_ c: Coordinate) -> (x: Double, y: Double) {
        let q = Self.pixel(c, zoom: zoom)
        return (canvas.width / 2 + (q.x - originPixel.x) * factor, canvas.height / 2 + (q.y - originPixel.y) * factor)
    }

    /// The tiles that cover the canvas.
    public var tiles: [Tile] {
        let count = 1 << zoom
        let side = 256.0
        let minX = originPixel.x - canvas.width / 2 / factor, maxX = originPixel.x + canvas.width / 2 / factor
        let minY = originPixel.y - canvas.height / 2 / factor, maxY = originPixel.y + canvas.height / 2 / factor
        var out: [Tile] = []
        for ty in Int(floor(minY / side))...Int(floor(maxY / side)) where (0..<count).contains(ty) {
            for tx in Int(floor(minX / side))...Int(floor(maxX / side)) {
                out.append(
                    Tile(
                        z: zoom, x: ((tx % count) + count) % count, y: ty,
                        left: canvas.width / 2 + (Double(tx) * side - originPixel.x) * factor,
                        top: canvas.height / 2 + (Double(ty) * side - originPixel.y) * factor, size: side * factor))
            }
        }
        return out
    }
}
