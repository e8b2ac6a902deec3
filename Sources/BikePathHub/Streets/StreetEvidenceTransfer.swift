import BikePathCore
import Foundation

/// What a re-import does with the riders' evidence on an edge whose key it drops: OSM editors
/// split a way (a new way for the part that got a new tag), merged two, or added a node where
/// a new street joins. The street is still there under new keys; its evidence moves to the
/// new edges that lie along it (docs/hub.md, "Re-imports"). Pure: both stores plan with it
/// inside their import's transaction.
public enum StreetEvidenceTransfer {
    /// How far a new edge's points may lie from the old edge's line (or the old's from the
    /// new's) and still be the same street: a split or a re-noding keeps the nodes where they
    /// were, and an editor's realignment of a few metres keeps the street. The cycle track
    /// beside its road (typically 3–10 m away) is a separate way in both imports and is kept
    /// apart by the rule on ways (`mayInherit`), not by this distance.
    static let toleranceMeters = 5.0
    /// The share of the shorter edge's length that must run along the longer one: a side
    /// street's first metres at a junction lie within the tolerance but run across, not along.
    static let alongShare = 0.8

    /// One old edge's evidence, per way it was ridden, its riders in each.
    public typealias Evidence = [StreetMatch.Way: StreetEvidence]

    public struct Plan: Sendable, Equatable {
        /// The evidence the new edges inherit, to add as a ride's increments are added.
        public var increments: [StreetIncrement]
        /// The old keys whose evidence moved: their rows are deleted, so that a later import
        /// that keys the street as before does not find it twice.
        public var moved: [StreetEdge.Key]
    }

    /// The plan for replacing the stored streets (`oldKeys` their keys, `old` those holding
    /// `evidence`) with `new`. Only an old edge the new streets drop gives, and only a new edge
    /// the old streets did not have takes: an edge kept under its key keeps its own evidence.
    public static func plan(
        old: [StreetEdge], oldKeys: Set<StreetEdge.Key>, evidence: [StreetEdge.Key: Evidence], new: [StreetEdge]
    ) -> Plan {
        let newKeys = Set(new.map(\.key))
        let dropped = old.filter { evidence[$0.key] != nil && !newKeys.contains($0.key) }.sorted { $0.key < $1.key }
        guard !dropped.isEmpty else { return Plan(increments: [], moved: []) }
        let added = new.filter { !oldKeys.contains($0.key) }.sorted { $0.key < $1.key }
        let oldWays = Set(oldKeys.map(\.way)), newWays = Set(new.map(\.key.way))
        let grid = BoxGrid(added)

        var inherited: [StreetEdge.Key: [StreetMatch.Way: StreetEvidence]] = [:]
        var moved: [StreetEdge.Key] = []
        for o in dropped {
            let line = Line(o.points)
            var gave = false
            for n in grid.edges(meeting: o.bounds, widenedBy: toleranceMeters).map({ added[$0] })
            where mayInherit(o.key.way, n.key.way, oldWays: oldWays, newWays: newWays) {
                guard let sameOrder = along(o, line, n) else { continue }
                gave = true
                for (way, e) in evidence[o.key] ?? [:] {
                    let onNew: StreetMatch.Way = sameOrder ? way : (way == .forward ? .backward : .forward)
                    inherited[n.key, default: [:]][onNew, default: StreetEvidence()].keepMost(e)
                }
            }
            if gave { moved.append(o.key) }
        }
        let increments = inherited.keys.sorted().flatMap { key in
            [StreetMatch.Way.forward, .backward].compactMap { way in
                inherited[key]?[way].map { StreetIncrement(key: key, way: way, evidence: $0) }
            }
        }
        return Plan(increments: increments, moved: moved)
    }

    /// Whether a new edge of way `new` may take an old edge of way `old`'s evidence: the same
    /// way (split at a new node, re-noded), a way the old streets did not have (the part a
    /// split gave a new way id), or from a way the new streets no longer have (merged into
    /// another). Two ways present in both imports are two streets, however close.
    static func mayInherit(_ old: Int64, _ new: Int64, oldWays: Set<Int64>, newWays: Set<Int64>) -> Bool {
        old == new || !oldWays.contains(new) || !newWays.contains(old)
    }

    /// Whether `n` lies along `o` (a part of it after a split) or `o` along `n` (a part of
    /// it after a merge), and if so whether they run in the same node order.
    static func along(_ o: StreetEdge, _ oLine: Line, _ n: StreetEdge) -> Bool? {
        if let same = oLine.runs(n.points) { return same }
        return Line(n.points).runs(o.points)
    }

    /// A polyline in a local plane (metres east and north of its first point), for the
    /// distance of a point to it and its position along it.
    struct Line {
        let origin: Coordinate
        let eastPerDegree: Double
        let points: [SIMD2<Double>]
        let offsets: [Double]

        init(_ coordinates: [Coordinate]) {
            let origin = coordinates[0], eastPerDegree = 111_320 * cos(origin.latitude * .pi / 180)
            let points = coordinates.map {
                SIMD2(($0.longitude - origin.longitude) * eastPerDegree, ($0.latitude - origin.latitude) * 111_320)
            }
            var offsets = [0.0]
            for (a, b) in zip(points, points.dropFirst()) {
                offsets.append(offsets[offsets.count - 1] + ((b - a) * (b - a)).sum().squareRoot())
            }
            (self.origin, self.eastPerDegree, self.points, self.offsets) = (origin, eastPerDegree, points, offsets)
        }

        func plane(_ c: Coordinate) -> SIMD2<Double> {
            SIMD2((c.longitude - origin.longitude) * eastPerDegree, (c.latitude - origin.latitude) * 111_320)
        }

        /// The point of the line nearest `c`: its metres along the line and from `c`.
        func nearest(_ c: Coordinate) -> (along: Double, distance: Double) {
            let p = plane(c)
            var best = (along: 0.0, distance: Double.infinity)
            for i in 0..<(points.count - 1) {
                let a = points[i], d = points[i + 1] - points[i]
                let length2 = (d * d).sum()
                let t = length2 > 0 ? max(0, min(1, ((p - a) * d).sum() / length2)) : 0
                let q = a + t * d - p
                let distance = (q * q).sum().squareRoot()
                if distance < best.distance { best = (offsets[i] + t * (offsets[i + 1] - offsets[i]), distance) }
            }
            return best
        }

        /// Whether every one of `coordinates` lies within the tolerance of the line and they
        /// run along it for `alongShare` of their own length: nil if not, else whether they
        /// run in the line's order.
        func runs(_ coordinates: [Coordinate]) -> Bool? {
            let projected = coordinates.map(nearest)
            guard projected.allSatisfy({ $0.distance <= StreetEvidenceTransfer.toleranceMeters }) else { return nil }
            let own = Line(coordinates).offsets.last ?? 0
            let span = projected[projected.count - 1].along - projected[0].along
            guard own > 0, abs(span) >= StreetEvidenceTransfer.alongShare * own else { return nil }
            return span > 0
        }
    }

    /// The added edges by the cells of a coarse grid their boxes cover (~110 m of latitude a
    /// cell): a dropped edge is compared with the added edges near it, not with all of them.
    struct BoxGrid {
        static let cellDegrees = 0.001
        let edges: [StreetEdge]
        var cells: [SIMD2<Int>: [Int]] = [:]

        init(_ edges: [StreetEdge]) {
            self.edges = edges
            for (i, e) in edges.enumerated() {
                for cell in Self.cells(e.bounds) { cells[cell, default: []].append(i) }
            }
        }

        static func cells(_ box: BoundingBox) -> [SIMD2<Int>] {
            let (w, e) = (Int((box.west / cellDegrees).rounded(.down)), Int((box.east / cellDegrees).rounded(.down)))
            let (s, n) = (Int((box.south / cellDegrees).rounded(.down)), Int((box.north / cellDegrees).rounded(.down)))
            return (w...e).flatMap { x in (s...n).map { SIMD2(x, $0) } }
        }

        /// The indices of the edges whose box meets `box` widened by `meters`, in order.
        func edges(meeting box: BoundingBox, widenedBy meters: Double) -> [Int] {
            let wide = box.widened(byMeters: meters)
            let found = Set(Self.cells(wide).flatMap { cells[$0] ?? [] })
            return found.sorted().filter { edges[$0].meets(wide) }
        }
    }
}

extension StreetEvidence {
    /// Keeps the most of each count of `other` and self: what the merge of two old edges'
    /// evidence on one new edge can say for sure. A trip that rode both parts is one trip, not
    /// two, and the evidence is aggregated, not per trip, so the largest count is the bound
    /// that holds; riders are a set and join exactly.
    mutating func keepMost(_ other: StreetEvidence) {
        rides.trips = max(rides.trips, other.rides.trips)
        rides.devices.formUnion(other.rides.devices)
        if let day = other.rides.lastDay { rides.lastDay = max(rides.lastDay ?? day, day) }
        for i in rides.ratings.indices { rides.ratings[i] = max(rides.ratings[i], other.rides.ratings[i]) }
        if other.roughnessTrips > roughnessTrips { (roughnessSum, roughnessTrips) = (other.roughnessSum, other.roughnessTrips) }
    }
}
