/// Distances on the WGS84 ellipsoid for the short steps between consecutive fixes.
///
/// Between two fixes (metres to a few hundred metres apart) the ellipsoid is locally a
/// plane scaled by the meridional radius M and the prime-vertical radius N at the mean
/// latitude. The error of this is far below a millimetre per step under 1 km, so summing
/// steps gives geodesic distance to metre resolution without Vincenty's iteration.
public enum Geodesic {
    static let semiMajorAxis = 6_378_137.0  // WGS84 a, metres
    static let eccentricitySquared = 6.694_379_990_14e-3  // WGS84 e²
    static let degreesToRadians = Double.pi / 180

    /// Metres per radian north (M) and east (N·cos φ) at a latitude in degrees.
    @inline(__always)
    static func metresPerRadian(latitude: Double) -> (north: Double, east: Double) {
        let phi = latitude * degreesToRadians
        let s = chainSin(phi)
        let w2 = 1 - eccentricitySquared * s * s
        let w = w2.squareRoot()
        let n = semiMajorAxis / w
        let m = semiMajorAxis * (1 - eccentricitySquared) / (w2 * w)
        return (m, n * chainCos(phi))
    }

    /// Ellipsoidal distance in metres between two nearby coordinates.
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let k = metresPerRadian(latitude: (a.latitude + b.latitude) / 2)
        let dn = (b.latitude - a.latitude) * degreesToRadians * k.north
        let de = longitudeDelta(from: a.longitude, to: b.longitude) * degreesToRadians * k.east
        return (dn * dn + de * de).squareRoot()
    }

    /// Degrees east from `a` to `b` the short way, in -180...180: a step from 179.9999° to
    /// -179.9999° crosses the antimeridian 22 m east, not 40,000 km west.
    @inline(__always)
    public static func longitudeDelta(from a: Double, to b: Double) -> Double {
        let d = b - a
        return d > 180 ? d - 360 : d < -180 ? d + 360 : d
    }

    /// The share of the way from `a` to `b` (0...1) of the point of that segment nearest
    /// `point`: its projection, clamped to the segment (`interpolate` gives the point).
    public static func nearestShare(of point: Coordinate, onSegment a: Coordinate, _ b: Coordinate) -> Double {
        let plane = LocalPlane(origin: point)
        return LocalPlane.share(plane.project(point), segment: plane.project(a), plane.project(b))
    }

    /// The point a share `t` of the way from `a` to `b`, along the short way in longitude,
    /// its longitude back in -180...180.
    public static func interpolate(_ a: Coordinate, _ b: Coordinate, _ t: Double) -> Coordinate {
        var longitude = a.longitude + longitudeDelta(from: a.longitude, to: b.longitude) * t
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        return Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: longitude)
    }
}

/// A local east/north plane around an origin, for filtering and path simplification.
struct LocalPlane: Sendable, Equatable {
    let origin: Coordinate
    let northPerDegree: Double
    let eastPerDegree: Double

    init(origin: Coordinate) {
        self.origin = origin
        let k = Geodesic.metresPerRadian(latitude: origin.latitude)
        northPerDegree = k.north * Geodesic.degreesToRadians
        eastPerDegree = k.east * Geodesic.degreesToRadians
    }

    func project(_ c: Coordinate) -> (east: Double, north: Double) {
        ((c.longitude - origin.longitude) * eastPerDegree, (c.latitude - origin.latitude) * northPerDegree)
    }

    /// Squared plane distance from `p` to the segment `a`–`b` (a point when a == b).
    static func squaredDistance(
        _ p: (east: Double, north: Double), segment a: (east: Double, north: Double),
        _ b: (east: Double, north: Double)
    ) -> Double {
        let t = share(p, segment: a, b)
        let qx = a.east + t * (b.east - a.east) - p.east, qy = a.north + t * (b.north - a.north) - p.north
        return qx * qx + qy * qy
    }

    /// The share of the way from `a` to `b` (0...1) of the segment's point nearest `p`.
    static func share(
        _ p: (east: Double, north: Double), segment a: (east: Double, north: Double),
        _ b: (east: Double, north: Double)
    ) -> Double {
        let dx = b.east - a.east, dy = b.north - a.north
        let len2 = dx * dx + dy * dy
        return len2 == 0 ? 0 : max(0, min(1, ((p.east - a.east) * dx + (p.north - a.north) * dy) / len2))
    }

    func unproject(east: Double, north: Double) -> Coordinate {
        Coordinate(
            latitude: origin.latitude + north / northPerDegree,
            longitude: origin.longitude + east / eastPerDegree)
    }
}
