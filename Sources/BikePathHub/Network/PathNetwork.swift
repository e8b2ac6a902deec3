import BikePathAPI
import BikePathCore
import Foundation

/// The community path network (docs/hub.md, "The community path network"): the streets
/// riders confirmed riding, as a graph of nodes a few metres apart joined by links.
///
/// Each confirmed trip's path (reconstructed and privacy-trimmed on the device) is walked
/// in steps of `NetworkRule.stepMeters`; each step snaps to the nearest node within
/// `snapMeters`, or becomes a new node. Consecutive distinct nodes are a link. So riders
/// of one street share its nodes, a crossing street shares the node at the crossing
/// (the graph is split there), and a parallel street farther than the tolerance stays apart.
///
/// Snapping depends on the order trips arrive in (the first rider of a street places its
/// nodes): the order is the hub's arrival sequence, the same on every replica and after
/// every restart, so the network is a function of the stored data and its order.
/// Appending a trip touches only the nodes along it, however large the network is.
public struct PathNetwork: Sendable {
    public var rule: NetworkRule
    public private(set) var nodes: [Int64: Coordinate] = [:]
    public private(set) var links: [LinkKey: LinkEvidence] = [:]
    /// The id the next new node takes.
    public private(set) var nextNode: Int64
    /// The nodes by snapping cell, with their positions (a lookup in `nodes` per candidate was a
    /// tenth of adding a ride).
    private var index: [MapGrid.Cell: [(id: Int64, position: Coordinate)]] = [:]

    /// A network holding `nodes` (the stored ones near the trips about to be added) and no links.
    public init(rule: NetworkRule = NetworkRule(), nodes: [NetworkNode] = [], nextNode: Int64 = 1) {
        self.rule = rule
        self.nextNode = nextNode
        for n in nodes { insert(n.id, n.position) }
    }

    /// The whole network from every confirmation, in arrival order: what the stored
    /// network must equal (`NetworkEqualityTests`).
    public static func build(_ confirmations: [ConfirmedRecord], rule: NetworkRule = NetworkRule()) -> PathNetwork {
        var network = PathNetwork(rule: rule)
        for c in confirmations { network.add(c) }
        return network
    }

    /// Adds one confirmation's ride; an unconfirmed or undecodable body adds nothing.
    public mutating func add(_ record: ConfirmedRecord) {
        guard let ride = RiddenPath(record) else { return }
        add(ride)
    }

    public mutating func add(_ ride: RiddenPath) {
        var seen: [LinkKey: PathStatus?] = [:]
        var previous: Int64?
        var near = Nearby(rule.grid)
        for sample in rule.samples(of: ride) {
            if sample.breakBefore { previous = nil }
            let node = snap(sample.position, &near)
            if let p = previous, p != node {
                let key = LinkKey(p, node)
                // A trip counts once per link, with the rating it gave there first.
                if seen[key] == nil { seen[key] = .some(sample.status) }
            }
            previous = node
        }
        for (key, status) in seen {
            links[key, default: LinkEvidence()].add(device: ride.device, day: ride.day, status: status)
        }
    }

    /// The nodes of the 3 × 3 snapping cells around the last step snapped: the next step, 5 m on,
    /// mostly looks in the same cells (9 dictionary lookups a step were a third of adding a ride).
    struct Nearby {
        var steps: MapGrid.RowSteps
        var neighbourhood: MapGrid.Neighbourhood?
        var nodes: [(id: Int64, position: Coordinate)] = []
        init(_ grid: MapGrid) { steps = MapGrid.RowSteps(grid) }
    }

    /// The nearest node within `snapMeters` (ties by id), or a new node here.
    mutating func snap(_ p: Coordinate, _ near: inout Nearby) -> Int64 {
        let neighbourhood = near.steps.neighbourhood(of: p)
        if near.neighbourhood != neighbourhood {
            near.neighbourhood = neighbourhood
            near.nodes = neighbourhood.cells.flatMap { index[$0] ?? [] }
        }
        var best: (id: Int64, distance: Double)?
        for node in near.nodes {
            let d = Geodesic.distance(p, node.position)
            if d <= rule.snapMeters, best.map({ (d, node.id) < ($0.distance, $0.id) }) ?? true { best = (node.id, d) }
        }
        if let best { return best.id }
        let id = nextNode
        nextNode += 1
        insert(id, p)
        // Its cell is the centre of the neighbourhood just read.
        near.nodes.append((id, p))
        return id
    }

    private mutating func insert(_ id: Int64, _ p: Coordinate) {
        nodes[id] = p
        index[rule.grid.cell(of: p), default: []].append((id, p))
        nextNode = max(nextNode, id + 1)
    }

    /// The tiles (`MapTiles.grid`) whose stored nodes adding `ride` may snap to: those
    /// within `snapMeters` of any of its steps (the tiles of each step's box's corners: a box
    /// 24 m across overlaps no other tile of 500 m).
    public func tiles(near ride: RiddenPath) -> Set<MapGrid.Cell> {
        var tiles = Set<MapGrid.Cell>()
        var steps = MapGrid.RowSteps(MapTiles.grid)
        var last: [MapGrid.Cell] = []
        let dLat = rule.snapMeters / 111_320
        for s in rule.samples(of: ride) {
            let dLon = dLat / max(cos(s.position.latitude * .pi / 180), 0.01)
            var corners: [MapGrid.Cell] = []
            for (y, x) in [(-dLat, -dLon), (-dLat, dLon), (dLat, -dLon), (dLat, dLon)] {
                corners.append(steps.cell(of: Coordinate(latitude: s.position.latitude + y, longitude: s.position.longitude + x)))
            }
            // Steps 5 m apart mostly fall in the tiles of the last.
            if corners != last { tiles.formUnion(corners) }
            last = corners
        }
        return tiles
    }

    /// The nodes this network created beyond `existing` (those it was made with).
    public func newNodes(since existing: Int64) -> [NetworkNode] {
        nodes.filter { $0.key >= existing }.map { NetworkNode(id: $0.key, position: $0.value) }.sorted { $0.id < $1.id }
    }
}

/// The network's tolerances, with their reasons.
public struct NetworkRule: Sendable, Equatable {
    /// Two riders of one street: consumer GNSS puts each fix within ~5 m (CEP50) and two
    /// passes on different days differ by up to ~10 m; parallel streets are a block
    /// (≥ 30 m) apart. A separated cycle track 5–10 m beside a road joins the road.
    public var snapMeters = 12.0
    /// Under half the spacing of the nodes (which are at least `snapMeters` apart): every
    /// node along a ridden street is the nearest one to some step, so no link skips one.
    public var stepMeters = 5.0
    /// A straight stretch longer than this is a gap (a privacy zone, a lost fix), not ridden:
    /// a device's simplified path has straight stretches of a few hundred metres.
    public var maxSegmentMeters = 2_000.0

    public init() {}

    /// The snapping index: cells as wide as the tolerance, so the 3 × 3 around a step hold every node within it.
    var grid: MapGrid { MapGrid(cellMeters: snapMeters) }

    /// One step along a ride: where, the rating of the stretch it lies in, and whether the
    /// ride has a gap just before it.
    struct Sample { var position: Coordinate; var status: PathStatus?; var breakBefore: Bool }

    func samples(of ride: RiddenPath) -> [Sample] {
        let path = ride.path
        guard let first = path.first else { return [] }
        var out = [Sample(position: first, status: nil, breakBefore: false)]
        var atPoint = [0]  // the sample each path point is
        for (a, b) in zip(path, path.dropFirst()) {
            let length = Geodesic.distance(a, b)
            if length > maxSegmentMeters {
                out.append(Sample(position: b, status: nil, breakBefore: true))
            } else {
                let steps = max(1, Int((length / stepMeters).rounded(.up)))
                for k in 1...steps {
                    let t = Double(k) / Double(steps)
                    out.append(Sample(position: Geodesic.interpolate(a, b, t), status: nil, breakBefore: false))
                }
            }
            atPoint.append(out.count - 1)
        }
        // Each road-quality stretch rates the steps between the path points nearest its ends.
        let points = NearestPathPoint(path)
        for stretch in ride.stretches {
            guard let i = points.nearest(stretch.start), let j = points.nearest(stretch.end) else { continue }
            for k in atPoint[min(i, j)]...atPoint[max(i, j)] where out[k].status == nil { out[k].status = stretch.status }
        }
        return out
    }
}

/// The index of the point of a path nearest a position, by an equirectangular distance (exact
/// enough to rank points a few metres apart, and ten times cheaper than the geodesic), ties to
/// the lowest index. A scan of the whole path per stretch end made a ride of 100,000 points and
/// 25,000 stretches cost 5 × 10⁹ distances (minutes of the map maintainer, every other ride's
/// map waiting); the points are bucketed in cells of `cellDegrees` and searched ring by ring
/// outward from the position's cell, until no unsearched cell can hold a nearer point.
struct NearestPathPoint {
    let path: [Coordinate]
    /// ~55 m of latitude: a stretch's ends lie metres from the path.
    static let cellDegrees = 0.0005
    private var cells: [Cell: [Int]] = [:]
    private var rows = 0...0
    private var columns = 0...0

    struct Cell: Hashable { var row: Int; var column: Int }

    static func cell(_ c: Coordinate) -> Cell {
        Cell(row: Int((c.latitude / cellDegrees).rounded(.down)), column: Int((c.longitude / cellDegrees).rounded(.down)))
    }

    init(_ path: [Coordinate]) {
        self.path = path
        for (i, c) in path.enumerated() { cells[Self.cell(c), default: []].append(i) }
        let keys = cells.keys
        if let r0 = keys.map(\.row).min(), let r1 = keys.map(\.row).max(), let c0 = keys.map(\.column).min(),
            let c1 = keys.map(\.column).max()
        {
            (rows, columns) = (r0...r1, c0...c1)
        }
    }

    func nearest(_ p: Coordinate) -> Int? {
        guard !path.isEmpty else { return nil }
        let scale = cos(p.latitude * .pi / 180)
        func d2(_ i: Int) -> Double {
            let (dy, dx) = (path[i].latitude - p.latitude, (path[i].longitude - p.longitude) * scale)
            return dx * dx + dy * dy
        }
        let home = Self.cell(p)
        // Rings nearer than this one, and beyond the last, hold no cell of the path; each ring
        // is searched only where it crosses the path's cells (a position far from the path
        // crosses them in a few cells a ring).
        let first = max(
            0, rows.lowerBound - home.row, home.row - rows.upperBound, columns.lowerBound - home.column, home.column - columns.upperBound)
        let last = max(
            abs(home.row - rows.lowerBound), abs(home.row - rows.upperBound), abs(home.column - columns.lowerBound),
            abs(home.column - columns.upperBound))
        // A cell looked up costs about what 8 distances do: once the cells looked up would have
        // paid for a scan of every point, scan (near a pole a cell is a sliver, and rings grow).
        var looked = 0
        var best: (d2: Double, index: Int)?
        for ring in first...last {
            // A point in ring `ring` is at least `ring - 1` whole cells away along one axis.
            if let found = best, ring > 0 {
                let reach = Double(ring - 1) * Self.cellDegrees * min(1, scale)
                if found.d2 < reach * reach { break }
            }
            for cell in ring == 0 ? [home] : Self.ring(ring, around: home, rows: rows, columns: columns) {
                looked += 1
                for i in cells[cell] ?? [] where best.map({ (d2(i), i) < ($0.d2, $0.index) }) ?? true { best = (d2(i), i) }
            }
            if looked * 8 > path.count { return path.indices.min { (d2($0), $0) < (d2($1), $1) } }
        }
        return best?.index
    }

    /// The cells `r` (> 0) steps (Chebyshev) from `center` that lie within `rows` and `columns`.
    static func ring(_ r: Int, around center: Cell, rows: ClosedRange<Int>, columns: ClosedRange<Int>) -> [Cell] {
        var out: [Cell] = []
        let (west, east) = (max(center.column - r, columns.lowerBound), min(center.column + r, columns.upperBound))
        if west <= east {
            for row in [center.row - r, center.row + r] where rows.contains(row) {
                for column in west...east { out.append(Cell(row: row, column: column)) }
            }
        }
        let (south, north) = (max(center.row - r + 1, rows.lowerBound), min(center.row + r - 1, rows.upperBound))
        if south <= north {
            for column in [center.column - r, center.column + r] where columns.contains(column) {
                for row in south...north { out.append(Cell(row: row, column: column)) }
            }
        }
        return out
    }
}

/// A node as stored: its id and where it is.
public struct NetworkNode: Sendable, Equatable {
    public var id: Int64
    public var position: Coordinate
    public init(id: Int64, position: Coordinate) { (self.id, self.position) = (id, position) }
}

/// A link between two nodes, undirected: `from` < `to`.
public struct LinkKey: Hashable, Sendable, Comparable {
    public var from: Int64
    public var to: Int64
    public init(_ a: Int64, _ b: Int64) { (from, to) = (min(a, b), max(a, b)) }
    public static func < (a: LinkKey, b: LinkKey) -> Bool { (a.from, a.to) < (b.from, b.to) }
}

/// What confirmed trips say of one link: the trips and riders that rode it, when, and
/// how they rated it (trips per status, best first as `PathStatus.allCases`).
public struct LinkEvidence: Sendable, Equatable {
    public var trips = 0
    public var devices: Set<String> = []
    public var lastDay: Int?
    public var ratings = [Int](repeating: 0, count: PathStatus.allCases.count)

    public init() {}

    mutating func add(device: String, day: Int?, status: PathStatus?) {
        trips += 1
        devices.insert(device)
        if let day { lastDay = max(lastDay ?? day, day) }
        if let status, let i = PathStatus.allCases.firstIndex(of: status) { ratings[i] += 1 }
    }
}

/// One confirmed trip as the network reads it.
public struct RiddenPath: Sendable {
    public var device: String
    /// UTC day of the trip (days since 1970-01-01), when the device knew the time.
    public var day: Int?
    public var path: [Coordinate]
    public var stretches: [Stretch]

    /// A road-quality stretch of the trip: its ends, the status the device gave it and its measured roughness.
    public struct Stretch: Sendable, Equatable {
        public var start: Coordinate
        public var end: Coordinate
        public var status: PathStatus
        public var roughness: Double
    }

    public init?(_ record: ConfirmedRecord) {
        guard let upload = try? WireKeys.decode(ConfirmationUpload.self, from: record.body) else { return nil }
        self.init(device: record.device, upload)
    }

    /// The path of a decoded confirmation; nil when it is not confirmed.
    public init?(device: String, _ upload: ConfirmationUpload) {
        guard upload.confirmed else { return nil }
        let draft = upload.draft
        self.device = device
        day = draft.trip.startUtcNs.map { Int($0 / 86_400_000_000_000) }
        path = draft.path.compactMap { $0.count == 2 ? Coordinate(latitude: $0[0], longitude: $0[1]) : nil }
        stretches = draft.roadQuality.compactMap { r in
            guard let a = r.start, let b = r.end, let status = PathStatus(rawValue: r.status) else { return nil }
            return Stretch(
                start: Coordinate(latitude: a.lat, longitude: a.lon), end: Coordinate(latitude: b.lat, longitude: b.lon), status: status,
                roughness: r.roughness)
        }
    }
}
