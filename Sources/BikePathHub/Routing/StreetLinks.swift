import BikePathCore
import Foundation

/// The graph a route search rides: the public community links and OpenStreetMap's streets
/// in the box, as links of one network (docs/hub.md, "Routes"). Each street edge becomes
/// its straight pieces (so that an end joins it at its projection, as on a community link),
/// and each community path's end or branching within `joinMeters` of a street is joined to
/// it by a short straight link, the street piece split at the projection. Pure: the same
/// links and streets make the same graph on both stores.
public enum StreetLinks {
    /// A community node this near a street joins it: phones' GNSS puts a rider 5–10 m off
    /// the line OSM draws (95 %), and a street's line is its middle, up to 5 m from its
    /// side; 15 m joins a path that reaches the kerb, not one across a row of houses (~20 m).
    public static let joinMeters = 15.0

    /// Street junctions keep their OSM node id in a range of their own, below every stored
    /// node id (positive); the points between them and the splits are numbered below that.
    static let junctionBase: Int64 = -(1 << 40)
    static let pointBase: Int64 = -(1 << 55)

    /// The community links and the streets as one network's links: the community links as
    /// they are, the streets' pieces and the joins with negative ids (stored links' are
    /// positive), numbered in the streets' key order. Each piece of a street carries the
    /// riders' evidence on it (`evidence`, by edge) where it is public, as a community link
    /// is (`NetworkLink.isPublic`): `RouteRule.cost` then takes the riders' status over the tags.
    /// Each corroborated obstacle of `obstacles` is carried by the street piece nearest it
    /// within the corroboration radius (`LinkObstacles.assign`, the rule that puts it on a
    /// community link; `obstacleMeters`), whatever its riders: it is public already.
    public static func links(
        community: [NetworkLink], streets: [StreetEdge], evidence: [StreetEdge.Key: StreetTally] = [:],
        obstacles: [ReportedObstacle] = [], minRiders: Int = CorroborationRule().minRiders
    ) -> [NetworkLink] {
        guard !streets.isEmpty else { return community }
        var made = Numbering()
        // Each street edge as its points, with node ids: OSM's at its ends, new ones between.
        var lines: [(edge: StreetEdge, nodes: [Int64])] = []
        for edge in streets.sorted(by: { $0.key < $1.key }) {
            let inner = (1..<max(1, edge.points.count - 1)).map { _ in made.node() }
            let nodes = [junctionBase - edge.key.from] + inner + [junctionBase - edge.key.to]
            lines.append((edge, nodes))
        }
        // Where the community network joins them: its ends and branchings near a piece.
        var splits: [SegmentRef: [(fraction: Double, node: Int64, position: Coordinate)]] = [:]
        var joins: [NetworkLink] = []
        let index = SegmentIndex(lines.map(\.edge.points))
        for (node, position) in joinable(community) {
            guard let (ref, fraction) = index.nearest(to: position, within: joinMeters) else { continue }
            let points = lines[ref.line].edge.points
            let at = Geodesic.interpolate(points[ref.segment], points[ref.segment + 1], fraction)
            let split = made.node()
            splits[ref, default: []].append((fraction, split, at))
            joins.append(made.link(node, position, split, at, .join))
        }
        var pieces: [NetworkLink] = []
        for (i, line) in lines.enumerated() {
            let (edge, nodes) = line
            for s in 0..<(edge.points.count - 1) {
                // The piece's points in the edge's order, with the splits on it.
                var stops = [(node: nodes[s], position: edge.points[s])]
                for split in (splits[SegmentRef(line: i, segment: s)] ?? []).sorted(by: { ($0.fraction, $0.node) < ($1.fraction, $1.node) })
                {
                    stops.append((split.node, split.position))
                }
                stops.append((nodes[s + 1], edge.points[s + 1]))
                for (a, b) in zip(stops, stops.dropFirst()) where a.node != b.node {
                    // Along the edge from a to b: the one-way rule turned to the key's order.
                    let direction: StreetRules.Direction =
                        a.node < b.node
                        ? edge.direction : edge.direction == .both ? .both : edge.direction == .forward ? .backward : .forward
                    var piece = made.link(a.node, a.position, b.node, b.position, .street(edge, direction: direction))
                    if let tally = evidence[edge.key] { piece.take(tally, minRiders: minRiders) }
                    pieces.append(piece)
                }
            }
        }
        // On the pieces as split, so that a route riding part of a piece pays the obstacle
        // only on the part it lies on. An obstacle also on a community path beside the street
        // is charged on each (a route rides the one or the other), so that neither way past
        // it rides free.
        let carried = LinkObstacles.assign(obstacles, to: pieces, radiusMeters: obstacleMeters)
        for i in pieces.indices { pieces[i].obstacles = carried[pieces[i].id] ?? LinkObstacles() }
        return community + pieces + joins
    }

    /// An obstacle this near a street lies on it (`LinkObstacles.assign`): the corroboration
    /// radius, which a spot's reports spread over (GNSS puts a fix within ~5 m, CEP50, and a
    /// detection lags by up to a wheel base), the same 15 m as `joinMeters` (a fix 5–10 m off
    /// OSM's line, 95 %, plus half a street's width, up to 5 m). An obstacle 40 m off is on
    /// the next street or in a yard, not on this one.
    public static let obstacleMeters = CorroborationRule().radiusMeters

    /// The community nodes a street may join: where a path ends or branches (not the middle
    /// of a path running beside a street, which would join it every 12 m), with positions.
    static func joinable(_ links: [NetworkLink]) -> [(Int64, Coordinate)] {
        var degree: [Int64: Int] = [:], position: [Int64: Coordinate] = [:]
        for l in links {
            degree[l.key.from, default: 0] += 1
            degree[l.key.to, default: 0] += 1
            (position[l.key.from], position[l.key.to]) = (l.from, l.to)
        }
        return degree.filter { $0.value != 2 }.keys.sorted().map { ($0, position[$0]!) }
    }

    /// New ids for the search's nodes and links, in the order asked.
    struct Numbering {
        private var nodes: Int64 = 0, links: Int64 = 0
        mutating func node() -> Int64 {
            nodes += 1
            return StreetLinks.pointBase - nodes
        }
        mutating func link(_ a: Int64, _ pa: Coordinate, _ b: Int64, _ pb: Coordinate, _ origin: NetworkLink.Origin) -> NetworkLink {
            links += 1
            let key = LinkKey(a, b)
            let (from, to) = key.from == a ? (pa, pb) : (pb, pa)
            return NetworkLink(
                id: -links, key: key, from: from, to: to, trips: 0, riders: 0, lastDay: nil,
                ratings: PathStatus.allCases.map { _ in 0 }, obstacles: LinkObstacles(), origin: origin)
        }
    }
}

extension NetworkLink {
    /// `tally`'s trips, riders and ratings on this street piece when they make it public; a
    /// street fewer riders rode stays as its tags say, and says 0 riders.
    mutating func take(_ tally: StreetTally, minRiders: Int) {
        var rated = self
        (rated.trips, rated.riders, rated.lastDay, rated.ratings) = (tally.trips, tally.riders, tally.lastDay, tally.ratings)
        if rated.isPublic(minRiders: minRiders) { self = rated }
    }
}

/// A straight piece of a street edge: the edge (by index) and the piece (from point `segment`).
struct SegmentRef: Hashable {
    var line: Int
    var segment: Int
}

/// The streets' pieces on a grid of 0.001° cells (~110 × 70 m in London), each listed in
/// every cell its box meets: the nearest piece to a point within a radius reads a few cells.
struct SegmentIndex {
    static let cellDegrees = 0.001
    private var cells: [Cell: [SegmentRef]] = [:]
    private let lines: [[Coordinate]]
    struct Cell: Hashable { var x: Int, y: Int }

    init(_ lines: [[Coordinate]]) {
        self.lines = lines
        for (i, points) in lines.enumerated() {
            for s in 0..<(points.count - 1) {
                let (a, b) = (points[s], points[s + 1])
                for cell in Self.cells(
                    south: min(a.latitude, b.latitude), west: min(a.longitude, b.longitude), north: max(a.latitude, b.latitude),
                    east: max(a.longitude, b.longitude))
                {
                    cells[cell, default: []].append(SegmentRef(line: i, segment: s))
                }
            }
        }
    }

    private static func cells(south: Double, west: Double, north: Double, east: Double) -> [Cell] {
        let (x0, x1) = (Int((west / cellDegrees).rounded(.down)), Int((east / cellDegrees).rounded(.down)))
        let (y0, y1) = (Int((south / cellDegrees).rounded(.down)), Int((north / cellDegrees).rounded(.down)))
        return (y0...y1).flatMap { y in (x0...x1).map { Cell(x: $0, y: y) } }
    }

    /// The pieces that may lie within `meters` of `point`: those listed in a cell of the
    /// window that wide around it (a piece that near has a point in the window, in a cell its box meets).
    func candidates(near point: Coordinate, within meters: Double) -> Set<SegmentRef> {
        let dLat = meters / 111_320, dLon = dLat / max(cos(abs(point.latitude) * .pi / 180), 0.01)
        return Set(
            Self.cells(
                south: point.latitude - dLat, west: point.longitude - dLon, north: point.latitude + dLat, east: point.longitude + dLon
            ).flatMap { cells[$0] ?? [] })
    }

    /// The piece nearest `point` within `meters` and where on it (0 at its first point), ties
    /// by edge and piece order; nil when none is that near.
    func nearest(to point: Coordinate, within meters: Double) -> (SegmentRef, Double)? {
        var best: (distance: Double, ref: SegmentRef, fraction: Double)?
        for ref in candidates(near: point, within: meters) {
            let (a, b) = (lines[ref.line][ref.segment], lines[ref.line][ref.segment + 1])
            let fraction = Geodesic.nearestShare(of: point, onSegment: a, b)
            let d = Geodesic.distance(point, Geodesic.interpolate(a, b, fraction))
            guard d <= meters else { continue }
            if best.map({ (d, ref.line, ref.segment) < ($0.distance, $0.ref.line, $0.ref.segment) }) ?? true { best = (d, ref, fraction) }
        }
        return best.map { ($0.ref, $0.fraction) }
    }
}
