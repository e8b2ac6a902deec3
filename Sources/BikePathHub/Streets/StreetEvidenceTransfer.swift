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

        var pairs: [Pair] = []
        // Each new edge's line, made when an old edge first meets it: one new edge may meet several.
        var lines = [Line?](repeating: nil, count: added.count)
        for o in dropped {
            let line = Line(o.points)
            for i in grid.edges(meeting: o.bounds, widenedBy: toleranceMeters)
            where mayInherit(o.key.way, added[i].key.way, oldWays: oldWays, newWays: newWays) {
                let nLine = lines[i] ?? Line(added[i].points)
                lines[i] = nLine
                if let pair = Pair(o.key, line, added[i].key, nLine) { pairs.append(pair) }
            }
        }
        var inherited: [StreetEdge.Key: [StreetMatch.Way: StreetEvidence]] = [:]
        var moved = Set<StreetEdge.Key>()
        for pair in nearest(pairs) {
            moved.insert(pair.old)
            for (way, e) in evidence[pair.old] ?? [:] {
                let onNew: StreetMatch.Way = pair.sameOrder ? way : (way == .forward ? .backward : .forward)
                inherited[pair.new, default: [:]][onNew, default: StreetEvidence()].keepMost(e)
            }
        }
        let increments = inherited.keys.sorted().flatMap { key in
            [StreetMatch.Way.forward, .backward].compactMap { way in
                inherited[key]?[way].map { StreetIncrement(key: key, way: way, evidence: $0) }
            }
        }
        return Plan(increments: increments, moved: moved.sorted())
    }

    /// An old edge and a new one along it (or it along the old one): which stretch of each
    /// the other covers, in metres along it, and how far apart they lie there.
    struct Pair {
        var old: StreetEdge.Key
        var new: StreetEdge.Key
        var sameOrder: Bool
        var onOld: ClosedRange<Double>
        var onNew: ClosedRange<Double>
        /// The farthest a tested point lies from the other's line.
        var distance: Double

        init?(_ old: StreetEdge.Key, _ oLine: Line, _ new: StreetEdge.Key, _ nLine: Line) {
            (self.old, self.new) = (old, new)
            if let run = oLine.runs(nLine) {
                (sameOrder, onOld, onNew, distance) = (run.sameOrder, run.stretch, 0...nLine.length, run.distance)
            } else if let run = nLine.runs(oLine) {
                (sameOrder, onOld, onNew, distance) = (run.sameOrder, 0...oLine.length, run.stretch, run.distance)
            } else {
                return nil
            }
        }

        /// Whether both pairs share an edge and cover most of the same stretch of it.
        func competes(with other: Pair) -> Bool {
            func overlap(_ a: ClosedRange<Double>, _ b: ClosedRange<Double>) -> Bool {
                let shared = min(a.upperBound, b.upperBound) - max(a.lowerBound, b.lowerBound)
                let shorter = min(a.upperBound - a.lowerBound, b.upperBound - b.lowerBound)
                return shared > StreetEvidenceTransfer.competingShare * shorter
            }
            return (old == other.old && overlap(onOld, other.onOld)) || (new == other.new && overlap(onNew, other.onNew))
        }

        /// Nearer first; ties by the keys, so that both stores keep the same pair.
        func isNearer(than other: Pair) -> Bool { (distance, old, new) < (other.distance, other.old, other.new) }
    }

    /// How much of the shorter of two stretches of one edge two pairs must share to compete:
    /// a split's parts and a merge's halves share only their ends; a cycle track re-keyed
    /// beside its re-keyed road covers all of it, as does a short edge leaving a junction at
    /// a sharp angle along its neighbour.
    static let competingShare = 0.5

    /// The pairs no nearer pair competes with. On real streets a re-keyed street can lie
    /// within the tolerance of its re-keyed cycle track, or of a short neighbour leaving a
    /// junction at a sharp angle: with every qualifying pair kept, 21 of the 1,246 new edges
    /// of central London re-imported with 736 of its 1,893 edges split or re-keyed would take
    /// a neighbour's evidence besides their own (`StreetEvidenceTransferRealTests`).
    static func nearest(_ pairs: [Pair]) -> [Pair] {
        var byOld: [StreetEdge.Key: [Int]] = [:], byNew: [StreetEdge.Key: [Int]] = [:]
        for (i, p) in pairs.enumerated() {
            byOld[p.old, default: []].append(i)
            byNew[p.new, default: []].append(i)
        }
        return pairs.filter { p in
            let rivals = (byOld[p.old] ?? []) + (byNew[p.new] ?? [])
            return !rivals.contains { pairs[$0].isNearer(than: p) && pairs[$0].competes(with: p) }
        }
    }

    /// Whether a new edge of way `new` may take an old edge of way `old`'s evidence: the same
    /// way (split at a new node, re-noded), a way the old streets did not have (the part a
    /// split gave a new way id), or from a way the new streets no longer have (merged into
    /// another). Two ways present in both imports are two streets, however close.
    static func mayInherit(_ old: Int64, _ new: Int64, oldWays: Set<Int64>, newWays: Set<Int64>) -> Bool {
        old == new || !oldWays.contains(new) || !newWays.contains(old)
    }

    /// A polyline in a local plane (metres east and north of its first point), for the
    /// distance of a point to it and its position along it.
    struct Line {
        let coordinates: [Coordinate]
        let origin: Coordinate
        let eastPerDegree: Double
        let points: [SIMD2<Double>]
        let offsets: [Double]

        init(_ coordinates: [Coordinate]) {
            self.coordinates = coordinates
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
                let t = p.share(onSegment: a, points[i + 1])
                let q = a + t * d - p
                let distance = (q * q).sum().squareRoot()
                if distance < best.distance { best = (offsets[i] + t * (offsets[i + 1] - offsets[i]), distance) }
            }
            return best
        }

        var length: Double { offsets[offsets.count - 1] }
        /// Whether the line ends where it starts (within 0.5 m): a way closed on itself.
        var closed: Bool {
            let d = points[0] - points[points.count - 1]
            return points.count > 2 && (d * d).sum() < 0.25
        }

        /// Whether every point of `other` lies within the tolerance of this line and it runs
        /// along it for `alongShare` of its own length: nil if not, else whether it runs in
        /// this line's order, the stretch of this line between its ends' projections, and the
        /// farthest of its points from this line.
        func runs(_ other: Line) -> (sameOrder: Bool, stretch: ClosedRange<Double>, distance: Double)? {
            let projected = other.coordinates.map(nearest)
            let distance = projected.map(\.distance).max() ?? .infinity
            guard distance <= StreetEvidenceTransfer.toleranceMeters else { return nil }
            let own = other.length
            var along = projected.map(\.along)
            // A way closed on itself (a loop from a node back to it) starts and ends at one
            // point: an end lying there is at 0 or at the length, whichever its neighbour is near.
            if closed, along.count > 1 {
                for (end, neighbour) in [(0, 1), (along.count - 1, along.count - 2)] where min(along[end], length - along[end]) < 0.5 {
                    along[end] = along[neighbour] > length / 2 ? length : 0
                }
            }
            let (first, last) = (along[0], along[along.count - 1])
            guard own > 0, abs(last - first) >= StreetEvidenceTransfer.alongShare * own else { return nil }
            return (last > first, min(first, last)...max(first, last), distance)
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
