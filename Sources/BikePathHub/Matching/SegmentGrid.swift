import BikePathCore

/// The streets' segments by square cell of a plane around their centre: the segments near
/// a fix without testing all of them. The plane (metres east and north, scaled at the
/// centre's latitude) is off by < 0.1 % across a 10 km city, well inside the search radius;
/// the distances the matcher scores are geodesic.
struct SegmentGrid: Sendable {
    struct Segment: Hashable, Comparable {
        var edge: Int32
        var index: Int32
        static func < (a: Segment, b: Segment) -> Bool { (a.edge, a.index) < (b.edge, b.index) }
    }
    private struct Cell: Hashable {
        var x: Int32
        var y: Int32
    }

    let origin: Coordinate
    let eastPerDegree: Double
    let northPerDegree: Double
    /// 50 m: a query within the 50 m radius reads 3×3 cells.
    let cellSize = 50.0
    private var cells: [Cell: [Segment]] = [:]

    init(_ edges: [StreetEdge]) {
        var box = BoundingBox(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
        for edge in edges {
            let b = edge.bounds
            (box.west, box.east) = (min(box.west, b.west), max(box.east, b.east))
            (box.south, box.north) = (min(box.south, b.south), max(box.north, b.north))
        }
        origin =
            edges.isEmpty
            ? Coordinate(latitude: 0, longitude: 0)
            : Coordinate(latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2)
        // Metres per degree from the WGS84 radii at the centre (the same as Geodesic's).
        let a = Geodesic.distance(origin, Coordinate(latitude: origin.latitude + 1e-3, longitude: origin.longitude))
        let b = Geodesic.distance(origin, Coordinate(latitude: origin.latitude, longitude: origin.longitude + 1e-3))
        (northPerDegree, eastPerDegree) = (a * 1e3, b * 1e3)
        for (e, edge) in edges.enumerated() {
            for i in 0..<(edge.points.count - 1) {
                let (p, q) = (plane(edge.points[i]), plane(edge.points[i + 1]))
                let segment = Segment(edge: Int32(e), index: Int32(i))
                for x in cell(min(p.x, q.x))...cell(max(p.x, q.x)) {
                    for y in cell(min(p.y, q.y))...cell(max(p.y, q.y)) { cells[Cell(x: x, y: y), default: []].append(segment) }
                }
            }
        }
    }

    func plane(_ c: Coordinate) -> SIMD2<Double> {
        SIMD2(
            Geodesic.longitudeDelta(from: origin.longitude, to: c.longitude) * eastPerDegree,
            (c.latitude - origin.latitude) * northPerDegree)
    }

    private func cell(_ metres: Double) -> Int32 { Int32(clamping: Int((metres / cellSize).rounded(.down))) }

    /// Every segment in a cell within `radius` of the point, each once, in order.
    func segments(near point: Coordinate, within radius: Double) -> [Segment] {
        let p = plane(point)
        var found: [Segment] = []
        for x in cell(p.x - radius)...cell(p.x + radius) {
            for y in cell(p.y - radius)...cell(p.y + radius) { found += cells[Cell(x: x, y: y)] ?? [] }
        }
        return Array(Set(found)).sorted()
    }
}
