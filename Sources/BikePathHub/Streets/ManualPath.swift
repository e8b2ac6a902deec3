import BikePathAPI
import BikePathCore
import Foundation

/// A path a rider enters by naming the streets they rode, in order, with where it starts and
/// ends (BBP R3–R4): made on the imported streets as the shortest way that starts on the
/// first named street at `from`, rides each named street in turn for at least one stretch,
/// and ends on the last at `to`. Its pieces have the shape of a matched ride's
/// (`StreetMatch.Piece`), so the hub keeps them as it keeps a ride's (docs/hub.md, "Manual
/// paths"). Pure: streets in, pieces out.
public enum ManualPath {
    /// Streets one path may name (`ManualPathUpload.streetCount`: the device checks it too).
    public static let streetCount = ManualPathUpload.streetCount
    /// How far `from` and `to` may lie from their street: a tap on a phone's map at zoom 14
    /// misses by ~30 m, a GNSS fix by ~10 m; a point 100 m off is on another street.
    public static let reachMeters = 100.0

    /// The path from `from` to `to` along `names` in order on `streets` (the streets around
    /// both ends, as a store reads them for a box). A name is matched as `PlaceSearch` matches
    /// a place's ("Goswel Road" finds Goswell Road); names scoring alike are all taken, and
    /// the ends say which one is meant. One-ways are kept where a way along them exists, and
    /// ignored where none does (the rider may have walked, or a tag may be wrong).
    public static func make(
        from: Coordinate, to: Coordinate, streets names: [String], on streets: [StreetEdge]
    ) throws(ManualPathError) -> [StreetMatch.Piece] {
        try make(from: from, to: to, streets: names, on: StreetGraph(edges: streets))
    }

    /// The path from `from` to `to` along `names` in order on `graph`'s streets (as `make`
    /// on its edges): the graph the matcher walks, one rule for edges, ends and one-ways.
    public static func make(
        from: Coordinate, to: Coordinate, streets names: [String], on graph: StreetGraph
    ) throws(ManualPathError) -> [StreetMatch.Piece] {
        guard streetCount.contains(names.count) else { throw .streetCount(names.count) }
        var layers: [Set<Int>] = []
        for (i, name) in names.enumerated() {
            let found = edgesNamed(name, in: graph.edges)
            guard !found.isEmpty else { throw .unknownStreet(index: i, name: name) }
            layers.append(found)
        }
        let nearStart = graph.nearest(from, among: layers[0]), nearEnd = graph.nearest(to, among: layers[layers.count - 1])
        guard let start = nearStart, start.meters <= reachMeters else {
            throw .startNotOnStreet(name: names[0], nearestMeters: nearStart?.meters)
        }
        guard let end = nearEnd, end.meters <= reachMeters else {
            throw .endNotOnStreet(name: names[names.count - 1], nearestMeters: nearEnd?.meters)
        }
        var search = LayeredSearch(graph: graph, layers: layers, start: start, end: end, oneWays: true)
        if let pieces = search.run() { return pieces }
        search.oneWays = false
        if let pieces = search.run() { return pieces }
        let reached = search.deepestLayer
        if reached < names.count - 1 { throw .notJoined(first: names[reached], second: names[reached + 1]) }
        throw .endNotReached(name: names[names.count - 1])
    }

    /// The edges whose name matches `name` best, if at least `PlaceSearch.minMatch`.
    static func edgesNamed(_ name: String, in edges: [StreetEdge]) -> Set<Int> {
        let search = PlaceSearch(query: name)
        var best = PlaceSearch.minMatch, found = Set<Int>(), scores: [String: Double] = [:]
        for (i, edge) in edges.enumerated() {
            guard let street = edge.name else { continue }
            let score = scores[street] ?? search.match(street)
            scores[street] = score
            if score > best + 1e-9 {
                (best, found) = (score, [i])
            } else if abs(score - best) <= 1e-9 {
                found.insert(i)
            }
        }
        return found
    }
}

/// A manual path the hub cannot make, said as the rider can act on it.
public enum ManualPathError: Error, Equatable, CustomStringConvertible {
    /// No street named, or more than `ManualPath.streetCount` allows.
    case streetCount(Int)
    /// No imported street near the ends has a name like the one given.
    case unknownStreet(index: Int, name: String)
    /// The start lies farther than `ManualPath.reachMeters` from the first street.
    case startNotOnStreet(name: String, nearestMeters: Double?)
    /// The end lies farther than `ManualPath.reachMeters` from the last street.
    case endNotOnStreet(name: String, nearestMeters: Double?)
    /// The two streets, one named after the other, do not meet on the way.
    case notJoined(first: String, second: String)
    /// Every street was reached, but not the end from along them.
    case endNotReached(name: String)

    /// The refusal's code on the wire (`PUT /v1/manual-paths/{id}`'s 422).
    public var code: String {
        switch self {
        case .streetCount: "street-count"
        case .unknownStreet: "unknown-street"
        case .startNotOnStreet: "start-not-on-street"
        case .endNotOnStreet: "end-not-on-street"
        case .notJoined: "streets-do-not-meet"
        case .endNotReached: "end-not-reached"
        }
    }

    public var description: String {
        switch self {
        case .streetCount(let n): ManualPathUpload.streetCountProblem(n)
        case .unknownStreet(let i, let name): "street \(i + 1), \"\(name)\", is not a street near the path's ends"
        case .startNotOnStreet(let name, let m): "the start is \(Self.distance(m)) from \(name), not on it"
        case .endNotOnStreet(let name, let m): "the end is \(Self.distance(m)) from \(name), not on it"
        case .notJoined(let a, let b): "\(a) and \(b) do not meet on the way from the start: name the streets between them"
        case .endNotReached(let name): "the end is on a part of \(name) the named streets do not lead to"
        }
    }

    private static func distance(_ meters: Double?) -> String {
        guard let m = meters else { return "far" }
        return m < 1_000 ? "\(Int(m.rounded())) m" : "\((m / 100).rounded() / 10) km"
    }
}

/// How much of the streets the hub reads to make one path (`PUT /v1/manual-paths/{id}`).
extension ManualPath {
    /// How far past the box of its two ends a path's streets are read, at least: a named path
    /// leaves the straight line between its ends (Aldersgate Street, Goswell Road, Old Street
    /// turns 100 m west of both ends' box), and 500 m holds a way round a city block or two.
    public static let marginMeters = 500.0

    /// The streets a path from `from` to `to` may ride: the ends' box widened by
    /// `marginMeters` or half the ends' distance, whichever is more. A path of detour factor
    /// f between ends d apart strays at most d·√(f²−1)/2 from the line between them; half of
    /// d holds f ≤ 1.4, the circuity of city streets (1.2–1.4). A path that strays farther
    /// names a street the box does not hold, and is refused with that street's name.
    public static func box(from: Coordinate, to: Coordinate) -> BoundingBox {
        BoundingBox(around: [from, to])!.widened(byMeters: max(marginMeters, Geodesic.distance(from, to) / 2))
    }

    /// The most street edges read for one path: its search holds a state per junction and
    /// street named (20 at most), ~40 bytes each, so 50,000 edges (~45,000 junctions) hold
    /// ~900,000 states, ~36 MB. Central London's extract has 1,893 edges over 6.2 km², 940 in
    /// its densest km²: 50,000 edges are ~53 km² there, a path whose ends lie ~5 km apart
    /// (with the margin of `box`); farther where streets are sparser.
    public static let maxEdges = 50_000
}
