import BikePathCore

/// A street between two junctions (or a way's end): a piece of one OpenStreetMap way that a
/// bicycle may use, with the tags a bike router reads. Its identity, `key`, is the way and
/// its end nodes: a re-import of the same streets gives the same keys, so what riders
/// reported on an edge can stay attached to it (docs/hub.md, "Streets").
public struct StreetEdge: Sendable, Equatable {
    public struct Key: Sendable, Hashable, Comparable {
        public var way: Int64
        public var from: Int64
        public var to: Int64
        public init(way: Int64, from: Int64, to: Int64) { (self.way, self.from, self.to) = (way, from, to) }
        public static func < (a: Key, b: Key) -> Bool { (a.way, a.from, a.to) < (b.way, b.from, b.to) }
    }

    public var key: Key
    /// The node positions from `key.from` to `key.to`, at least two.
    public var points: [Coordinate]
    public var lengthMeters: Double
    public var highway: String
    public var name: String?
    public var surface: String?
    public var smoothness: String?
    /// The cycle infrastructure on the left and right (`StreetRules.cycleway`).
    public var cyclewayLeft: String?
    public var cyclewayRight: String?
    /// The bicycle's access tag as mapped (`StreetRules.bicycleAccess`), nil where none is.
    public var bicycle: String?
    public var direction: StreetRules.Direction

    public init(
        key: Key, points: [Coordinate], lengthMeters: Double, highway: String, name: String? = nil, surface: String? = nil,
        smoothness: String? = nil, cyclewayLeft: String? = nil, cyclewayRight: String? = nil, bicycle: String? = nil,
        direction: StreetRules.Direction = .both
    ) {
        (self.key, self.points, self.lengthMeters, self.highway, self.name) = (key, points, lengthMeters, highway, name)
        (self.surface, self.smoothness, self.cyclewayLeft, self.cyclewayRight) = (surface, smoothness, cyclewayLeft, cyclewayRight)
        (self.bicycle, self.direction) = (bicycle, direction)
    }

    /// The smallest box holding every point (an empty box, meeting nothing, for no point).
    public var bounds: BoundingBox {
        BoundingBox(around: points) ?? BoundingBox(west: .infinity, south: .infinity, east: -.infinity, north: -.infinity)
    }

    /// The metres from the first point to each point along the edge (the last is its length
    /// as measured here, which `lengthMeters` from the import may round).
    var offsets: [Double] {
        var sum = 0.0
        return [0]
            + zip(points, points.dropFirst()).map {
                sum += Geodesic.distance($0, $1); return sum
            }
    }

    /// Whether the edge's bounding box meets `box` (what both stores' reads select by).
    public func meets(_ box: BoundingBox) -> Bool {
        let b = bounds
        return b.west <= box.east && b.east >= box.west && b.south <= box.north && b.north >= box.south
    }

    /// `points` as both stores keep them: "LON LAT,LON LAT,…", the coordinates of a WKT
    /// LINESTRING (PostgreSQL builds its PostGIS line from it). Swift's shortest round-trip
    /// digits: read back, each position is the same Double.
    var pointsText: String { Self.text(points) }

    /// Points as `pointsText` writes them.
    static func text(_ points: [Coordinate]) -> String { points.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") }

    /// `pointsText` read back; nil when it is not that text.
    static func points(text: String) -> [Coordinate]? {
        var points: [Coordinate] = []
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: " ")
            guard parts.count == 2, let lon = Double(parts[0]), let lat = Double(parts[1]) else { return nil }
            points.append(Coordinate(latitude: lat, longitude: lon))
        }
        return points.count >= 2 ? points : nil
    }
}
