import BikePathCore
import Foundation

/// Projects a trip's coordinates onto an SVG canvas, true to scale (one metre is
/// the same length east and north), and back again for a tap on the map.
/// Over a ride's few kilometres an equirectangular plane around the path's centre
/// is off by well under a pixel.
public struct PathProjection: Sendable, Equatable {
    /// Canvas size in SVG units (CSS pixels: the map is shown at this size so a tap's x/y need no rescaling).
    public let width: Double
    public let height: Double
    /// SVG units per metre.
    public let scale: Double
    let origin: Coordinate
    let metresPerDegree: (north: Double, east: Double)
    let margin: Double

    public static func == (a: Self, b: Self) -> Bool {
        a.width == b.width && a.height == b.height && a.scale == b.scale && a.origin == b.origin && a.margin == b.margin
    }

    /// Fits `coordinates` into `width` (and at most `maxHeight`) with `margin` on every side.
    public init(fitting coordinates: [Coordinate], width: Double = 360, maxHeight: Double = 420, margin: Double = 16) {
        let lats = coordinates.map(\.latitude), lons = coordinates.map(\.longitude)
        let south = lats.min() ?? 0, north = lats.max() ?? 0, west = lons.min() ?? 0, east = lons.max() ?? 0
        let centre = Coordinate(latitude: (south + north) / 2, longitude: (west + east) / 2)
        let northPerDegree = 111_132.0
        let eastPerDegree = 111_320.0 * cos(centre.latitude * .pi / 180)
        let spanEast = max((east - west) * eastPerDegree, 1), spanNorth = max((north - south) * northPerDegree, 1)
        let scale = min((width - 2 * margin) / spanEast, (maxHeight - 2 * margin) / spanNorth)
        self.width = width
        // At least 120 high, so a path that runs straight east still has room for its numbers.
        self.height = max(120, (spanNorth * scale + 2 * margin).rounded(.up))
        self.scale = scale
        self.origin = centre
        self.metresPerDegree = (northPerDegree, eastPerDegree)
        self.margin = margin
    }

    /// The canvas point of a coordinate (y grows southwards, as SVG's does).
    public func point(_ c: Coordinate) -> (x: Double, y: Double) {
        (
            width / 2 + (c.longitude - origin.longitude) * metresPerDegree.east * scale,
            height / 2 - (c.latitude - origin.latitude) * metresPerDegree.north * scale
        )
    }

    /// The coordinate under a canvas point: the inverse of `point`.
    public func coordinate(x: Double, y: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude - (y - height / 2) / (metresPerDegree.north * scale),
            longitude: origin.longitude + (x - width / 2) / (metresPerDegree.east * scale))
    }

    /// A round length (1, 2 or 5 × 10ⁿ metres) near a fifth of the width, for the scale bar.
    public var scaleBarMetres: Double {
        let target = width / 5 / scale
        let magnitude = pow(10, floor(log10(target)))
        return [5.0, 2, 1].map { $0 * magnitude }.first { $0 <= target } ?? magnitude
    }
}

extension PathProjection {
    /// The point of `path` nearest a tap at (x, y) on the canvas, and how many
    /// canvas units the tap was from it: a tap lands on the line, not beside it.
    public func nearestOnPath(_ path: [Coordinate], x: Double, y: Double) -> (coordinate: Coordinate, distance: Double)? {
        let points = path.map(point)
        guard let first = points.first else { return nil }
        var best = (x: first.x, y: first.y, d: hypot(first.x - x, first.y - y))
        for (a, b) in zip(points, points.dropFirst()) {
            let dx = b.x - a.x, dy = b.y - a.y, length = dx * dx + dy * dy
            let t = length == 0 ? 0 : min(1, max(0, ((x - a.x) * dx + (y - a.y) * dy) / length))
            let q = (x: a.x + t * dx, y: a.y + t * dy)
            let d = hypot(q.x - x, q.y - y)
            if d < best.d { best = (q.x, q.y, d) }
        }
        return (coordinate(x: best.x, y: best.y), best.d)
    }
}
