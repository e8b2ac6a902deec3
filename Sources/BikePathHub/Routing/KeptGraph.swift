import BikePathCore
import Foundation

/// A store's whole public network (the community links and the streets' pieces and joins,
/// `StreetLinks`), contracted between junctions once and kept between searches
/// (`RoutingCache`): building it was most of a search's time (docs/performance.md, "Route
/// search"). Immutable once built, so searches share it read-only; a search sees only the
/// links its box would have read from the store (`view(in:)`), its ends joining as virtual
/// nodes (`KeptGraph.View`).
public final class KeptGraph: Sendable {
    let links: [NetworkLink]
    let rule: RouteRule
    /// Each link's index in `links`, by id (penalties and joining points name links by id).
    let index: [Int64: Int32]
    /// The chains between junctions (`LoadedGraph.contracted` keeping none), with their nodes.
    let chains: [LoadedGraph.Chain]
    /// Chain c's nodes in order: `chainNodes[c][k]` and `[k + 1]` are link `chains[c].links[k]`'s ends.
    let chainNodes: [[Int64]]
    /// Each link's chain and its place in it.
    let chainOf: [Int32], place: [Int32]
    /// The junctions (chains' ends) numbered densely in id order, as Dijkstra breaks ties.
    let junctions: [Int64]
    let junctionIndex: [Int64: Int32]
    let junctionPositions: [Coordinate]
    /// The chains at each junction.
    let at: [[Int32]]
    /// What a box must reach for a link (`linkReach`) or a whole chain (`chainReach`) to be in it.
    let linkReach: [Reach], chainReach: [Reach]
    /// Links by the grid cells of their ends (`cellDegrees`), for the joining points near an end.
    let cells: [SegmentIndex.Cell: [Int32]]
    /// How many links start (their `from` end) in each cell: the search budget's count
    /// (`view(in:maxLinks:)`), each link counted once.
    let starts: [SegmentIndex.Cell: Int32]
    /// The least a metre of any link costs (`RouteRule.minFactor`): A*'s bound.
    let minFactor: Double

    /// ~220 × 140 m at London's latitude: an end's 330 m window reads 3 × 4 to 4 × 5 cells.
    static let cellDegrees = 0.002

    /// Builds the graph of `community` (the public links) and `streets` with the riders'
    /// `evidence` on them, public at `minRiders`, and the corroborated `obstacles` on them
    /// (`StreetLinks.links`; the community links carry theirs as stored).
    public init(
        community: [NetworkLink], streets: [StreetEdge], evidence: [StreetEdge.Key: StreetTally] = [:],
        obstacles: [ReportedObstacle] = [], minRiders: Int = CorroborationRule().minRiders, rule: RouteRule = RouteRule()
    ) {
        let loaded = LoadedGraph(
            links: StreetLinks.links(
                community: community, streets: streets, evidence: evidence, obstacles: obstacles, minRiders: minRiders),
            rule: rule)
        // Nodes where two links meet are folded; a loop of them only (a ride round a park
        // touching nothing) has no junction, so its nodes are kept and each link is a chain.
        var contraction = loaded.contracted(keeping: [])
        let loops = contraction.chainOf.indices.filter { contraction.chainOf[$0] == nil }
        if !loops.isEmpty {
            contraction = loaded.contracted(keeping: Set(loops.flatMap { [loaded.links[$0].key.from, loaded.links[$0].key.to] }))
        }
        (links, self.rule, chains, minFactor) = (loaded.links, rule, contraction.chains, rule.minFactor)
        index = Dictionary(links.enumerated().map { ($1.id, Int32($0)) }, uniquingKeysWith: { a, _ in a })
        var chainOf = [Int32](repeating: -1, count: links.count), place = chainOf
        var chainNodes: [[Int64]] = []
        for (c, chain) in chains.enumerated() {
            var nodes = [chain.from]
            for (k, l) in chain.links.enumerated() {
                (chainOf[l], place[l]) = (Int32(c), Int32(k))
                nodes.append(links[l].otherEnd(nodes[k]))
            }
            chainNodes.append(nodes)
        }
        (self.chainOf, self.place, self.chainNodes) = (chainOf, place, chainNodes)
        junctions = Set(chains.flatMap { [$0.from, $0.to] }).sorted()
        junctionIndex = Dictionary(uniqueKeysWithValues: junctions.enumerated().map { ($1, Int32($0)) })
        var positions = [Coordinate](repeating: Coordinate(latitude: 0, longitude: 0), count: junctions.count)
        var at = [[Int32]](repeating: [], count: junctions.count)
        for (c, chain) in chains.enumerated() {
            let (first, last) = (links[chain.links.first!], links[chain.links.last!])
            let (a, b) = (Int(junctionIndex[chain.from]!), Int(junctionIndex[chain.to]!))
            positions[a] = first.key.from == chain.from ? first.from : first.to
            positions[b] = last.key.from == chain.to ? last.from : last.to
            at[a].append(Int32(c))
            if b != a { at[b].append(Int32(c)) }
        }
        (junctionPositions, self.at) = (positions, at)
        let linkReach = links.map(Reach.init)
        chainReach = chains.map { $0.links.reduce(Reach.anywhere) { $0.and(linkReach[$1]) } }
        self.linkReach = linkReach
        var cells: [SegmentIndex.Cell: [Int32]] = [:], starts: [SegmentIndex.Cell: Int32] = [:]
        for (i, l) in links.enumerated() {
            let (a, b) = (Self.cell(of: l.from), Self.cell(of: l.to))
            cells[a, default: []].append(Int32(i))
            if b != a { cells[b, default: []].append(Int32(i)) }
            starts[a, default: 0] += 1
        }
        (self.cells, self.starts) = (cells, starts)
    }

    static func cell(of c: Coordinate) -> SegmentIndex.Cell {
        SegmentIndex.Cell(x: Int((c.longitude / cellDegrees).rounded(.down)), y: Int((c.latitude / cellDegrees).rounded(.down)))
    }

    /// How big it is: its links (paths, street pieces, joins), chains and junctions.
    public var size: (links: Int, chains: Int, junctions: Int) { (links.count, chains.count, junctions.count) }

    /// The graph as a search in `box` sees it; `RouteSearch.Problem.tooManyLinks` when more
    /// than `maxLinks` links start in the cells the box meets (`linkCount`).
    public func view(in box: BoundingBox, maxLinks: Int = RouteRule().maxLinks) throws -> View {
        guard linkCount(in: box, upTo: maxLinks) <= maxLinks else { throw RouteSearch.Problem.tooManyLinks(limit: maxLinks) }
        return View(graph: self, box: box)
    }

    /// The links that start in a cell meeting `box`, counted until past `limit`: the search
    /// budget (`RouteRule.maxLinks`), one rule for both stores, from the graph in memory (on
    /// PostgreSQL the count on the GiST index read up to 50,001 rows a search). The cells
    /// reach up to 220 m past the box; a street's piece outside them whose street crosses
    /// the box is seen by the search but not counted (a street's pieces are few).
    func linkCount(in box: BoundingBox, upTo limit: Int) -> Int {
        let sw = Self.cell(of: Coordinate(latitude: box.south, longitude: box.west))
        let ne = Self.cell(of: Coordinate(latitude: box.north, longitude: box.east))
        guard sw.x <= ne.x, sw.y <= ne.y else { return 0 }
        var count = 0
        if (ne.x - sw.x + 1) * (ne.y - sw.y + 1) > starts.count {
            // A box of more cells than the network has (a continent): walk the network's.
            for (cell, n) in starts where (sw.x...ne.x).contains(cell.x) && (sw.y...ne.y).contains(cell.y) { count += Int(n) }
            return count
        }
        for y in sw.y...ne.y {
            for x in sw.x...ne.x { count += Int(starts[SegmentIndex.Cell(x: x, y: y)] ?? 0) }
            if count > limit { return count }
        }
        return count
    }

    /// The links in `box` with an end within `meters` of `point` (a window of degrees, a
    /// superset of the one `JoiningPoints.among` measures in).
    func links(near point: Coordinate, within meters: Double, in box: BoundingBox) -> [NetworkLink] {
        let dLat = 1.2 * meters / 111_320, dLon = dLat / max(cos((abs(point.latitude) + dLat) * .pi / 180), 0.01)
        let (sw, ne) = (
            Self.cell(of: Coordinate(latitude: point.latitude - dLat, longitude: point.longitude - dLon)),
            Self.cell(of: Coordinate(latitude: point.latitude + dLat, longitude: point.longitude + dLon))
        )
        var found = Set<Int32>()
        for y in sw.y...ne.y {
            for x in sw.x...ne.x { found.formUnion(cells[SegmentIndex.Cell(x: x, y: y)] ?? []) }
        }
        return found.sorted().filter { linkReach[Int($0)].isMet(by: box) }.map { links[Int($0)] }
    }

    /// Where a link lies as the stores' box reads select it: a link is read when its bounding
    /// box meets the search box, a street's piece when its street's does (the stores read
    /// whole streets). A chain is in a box when each of its links is: the westmost east
    /// edge of its links' boxes is east of the box's west side, and so on.
    struct Reach {
        var minEast, maxWest, minNorth, maxSouth: Double
        static let anywhere = Reach(minEast: .infinity, maxWest: -.infinity, minNorth: .infinity, maxSouth: -.infinity)

        init(minEast: Double, maxWest: Double, minNorth: Double, maxSouth: Double) {
            (self.minEast, self.maxWest, self.minNorth, self.maxSouth) = (minEast, maxWest, minNorth, maxSouth)
        }

        init(_ link: NetworkLink) {
            if let street = link.street {
                let b = street.bounds
                self.init(minEast: b.east, maxWest: b.west, minNorth: b.north, maxSouth: b.south)
            } else {
                self.init(
                    minEast: max(link.from.longitude, link.to.longitude), maxWest: min(link.from.longitude, link.to.longitude),
                    minNorth: max(link.from.latitude, link.to.latitude), maxSouth: min(link.from.latitude, link.to.latitude))
            }
        }

        func and(_ other: Reach) -> Reach {
            Reach(
                minEast: min(minEast, other.minEast), maxWest: max(maxWest, other.maxWest), minNorth: min(minNorth, other.minNorth),
                maxSouth: max(maxSouth, other.maxSouth))
        }

        func isMet(by box: BoundingBox) -> Bool {
            minEast >= box.west && maxWest <= box.east && minNorth >= box.south && maxSouth <= box.north
        }
    }
}

extension RouteRule {
    /// The least a metre of any link may cost: the cheapest status, the unrated factor, or the
    /// cheapest street class on the best surface (infrastructure caps a class at a cycleway's
    /// or 1.3). Obstacles and penalties only add, so a great-circle distance times it never
    /// overestimates (A*'s bound, `KeptGraph`).
    var minFactor: Double {
        let classes = ["cycleway", "residential", "unclassified", "tertiary", "secondary", "primary", "motorway"]
        return min(statusFactors.min() ?? 1, unknownFactor, 1.3, classes.map(streetClassFactor).min() ?? 1)
    }
}

extension BoundingBox {
    /// Every place: the kept graph reads every street.
    static let world = BoundingBox(west: -180, south: -90, east: 180, north: 90)
}
