import BikePathCore
import Foundation

/// What the confirmed rides matched to one street edge ridden one way say of it (docs/hub.md,
/// "The riders' evidence on the streets"): its trips, riders, last day and ratings as a
/// community link keeps them, and the road-quality stretches' measured roughness.
public struct StreetEvidence: Sendable, Equatable {
    public var rides = LinkEvidence()
    /// The roughness of the stretch each trip rode the edge in, summed, and the trips that measured one.
    public var roughnessSum = 0.0
    public var roughnessTrips = 0

    public init() {}

    mutating func add(_ other: StreetEvidence) {
        rides.trips += other.rides.trips
        rides.devices.formUnion(other.rides.devices)
        if let day = other.rides.lastDay { rides.lastDay = max(rides.lastDay ?? day, day) }
        for i in rides.ratings.indices { rides.ratings[i] += other.rides.ratings[i] }
        roughnessSum += other.roughnessSum
        roughnessTrips += other.roughnessTrips
    }
}

/// One street edge's added evidence, one way along it.
public struct StreetIncrement: Sendable, Equatable {
    public var key: StreetEdge.Key
    public var way: StreetMatch.Way
    public var evidence: StreetEvidence
}

/// What the stores answer of one street edge for routes: its evidence over both ways, its
/// riders counted once however many ways they rode it.
public struct StreetTally: Sendable, Equatable {
    public var trips: Int
    public var riders: Int
    public var lastDay: Int?
    /// Trips per rating, best first (`PathStatus.allCases`).
    public var ratings: [Int]
    /// The mean measured roughness; nil where no trip measured one.
    public var roughness: Double?

    public init(trips: Int, riders: Int, lastDay: Int?, ratings: [Int], roughness: Double?) {
        (self.trips, self.riders, self.lastDay, self.ratings, self.roughness) = (trips, riders, lastDay, ratings, roughness)
    }

    /// The columns of `street_evidence` a tally is summed from, in this order, on both stores
    /// (grouped by edge; the riders are counted from `street_evidence_riders`).
    static let summedColumns = """
        e.way_id, e.from_node, e.to_node, sum(e.trips), max(e.last_day), sum(e.rated_optimal), sum(e.rated_medium),
        sum(e.rated_sufficient), sum(e.rated_requires_maintenance), sum(e.roughness_sum), sum(e.roughness_trips),
        (SELECT count(*) FROM street_evidence_riders r WHERE r.way_id = e.way_id AND r.from_node = e.from_node AND r.to_node = e.to_node)
        """

    /// The street edges (keys) holding evidence that no stored street has, on both stores.
    static let strandedCount = """
        SELECT count(*) FROM (SELECT DISTINCT way_id, from_node, to_node FROM street_evidence e WHERE NOT EXISTS (
            SELECT 1 FROM streets s WHERE s.way_id = e.way_id AND s.from_node = e.from_node AND s.to_node = e.to_node)) stranded
        """

    init(trips: Int, lastDay: Int?, ratings: [Int], roughnessSum: Double, roughnessTrips: Int, riders: Int) {
        self.init(
            trips: trips, riders: riders, lastDay: lastDay, ratings: ratings,
            roughness: roughnessTrips > 0 ? roughnessSum / Double(roughnessTrips) : nil)
    }
}

/// Confirmed rides matched to the streets (`StreetMatcher`), as the map maintainer adds
/// them: each street edge a ride rode, each way, gets its trip once, with the rating and
/// roughness of the road-quality stretch it rode the edge in. Pure: the same rides and
/// streets give the same evidence on every replica.
public enum StreetRides {
    /// The box whose streets may be candidates of `ride`'s points: its points' box widened by
    /// the matcher's candidate radius; nil for a ride with no point.
    static func box(around ride: RiddenPath, parameters: MatchParameters = MatchParameters()) -> BoundingBox? {
        BoundingBox(around: ride.path)?.widened(byMeters: parameters.radius)
    }

    /// The evidence `ride` adds to the streets of `graph`. A device's path carries no times
    /// (it is simplified and trimmed on the device): its points are matched in their order,
    /// a second apart (the matcher reads times only for their order).
    public static func increments(_ ride: RiddenPath, on graph: StreetGraph, parameters: MatchParameters = MatchParameters())
        -> [StreetIncrement]
    {
        let fixes = ride.path.enumerated().map { MatchFix(position: $1, time: SampleTime(seconds: Double($0))) }
        guard graph.edgeCount > 0, let match = try? StreetMatcher(graph: graph, parameters: parameters).match(fixes) else { return [] }
        let edgeIndex = Dictionary(uniqueKeysWithValues: graph.edges.enumerated().map { ($1.key, $0) })
        let stretches = RatedPoints(ride)
        return counted(match.runs.flatMap(\.pieces), parameters).compactMap { piece in
            guard let edge = edgeIndex[piece.key] else { return nil }
            let stretch = stretches.stretch(near: graph.point(edge, at: (piece.fromMeters + piece.toMeters) / 2))
            var evidence = StreetEvidence()
            evidence.rides.add(device: ride.device, day: ride.day, status: stretch?.status)
            if let roughness = stretch?.roughness { (evidence.roughnessSum, evidence.roughnessTrips) = (roughness, 1) }
            return StreetIncrement(key: piece.key, way: piece.way, evidence: evidence)
        }
    }

    /// The evidence a manual path (`ManualPath`) adds as its rider's rating: each piece counted
    /// as a ride's is (`counted`), a trip with `status` and no roughness (nothing measured it).
    public static func increments(
        path pieces: [StreetMatch.Piece], device: String, day: Int?, status: PathStatus, parameters: MatchParameters = MatchParameters()
    ) -> [StreetIncrement] {
        counted(pieces, parameters).map { piece in
            var evidence = StreetEvidence()
            evidence.rides.add(device: device, day: day, status: status)
            return StreetIncrement(key: piece.key, way: piece.way, evidence: evidence)
        }
    }

    /// The pieces that count, each edge and way once however often ridden: a piece shorter
    /// than 2σ that covers under half its edge is not counted (a fix at a junction lands a few
    /// metres onto the crossing street, and the matcher takes movement within 2σ as noise).
    public static func counted(_ pieces: [StreetMatch.Piece], _ parameters: MatchParameters) -> [StreetMatch.Piece] {
        var seen = Set<PieceWay>()
        return pieces.filter { piece in
            (piece.lengthMeters >= parameters.thinning || piece.fraction >= 0.5)
                && seen.insert(PieceWay(key: piece.key, way: piece.way)).inserted
        }
    }

    /// The increments of many rides as one per edge and way, in key order.
    public static func summed(_ increments: [StreetIncrement]) -> [StreetIncrement] {
        var sums: [PieceWay: StreetEvidence] = [:]
        for i in increments { sums[PieceWay(key: i.key, way: i.way), default: StreetEvidence()].add(i.evidence) }
        return sums.map { StreetIncrement(key: $0.key.key, way: $0.key.way, evidence: $0.value) }.sorted {
            ($0.key, $0.way.rawValue) < ($1.key, $1.way.rawValue)
        }
    }

    struct PieceWay: Hashable {
        var key: StreetEdge.Key
        var way: StreetMatch.Way
    }

    /// Each path point's road-quality stretch: the first stretch whose ends' nearest points
    /// hold it between them (as `NetworkRule.samples` rates a ride's steps).
    struct RatedPoints {
        let points: NearestPathPoint
        var stretchAt: [RiddenPath.Stretch?]

        init(_ ride: RiddenPath) {
            points = NearestPathPoint(ride.path)
            stretchAt = Array(repeating: nil, count: ride.path.count)
            for stretch in ride.stretches {
                guard let i = points.nearest(stretch.start), let j = points.nearest(stretch.end) else { continue }
                for k in min(i, j)...max(i, j) where stretchAt[k] == nil { stretchAt[k] = stretch }
            }
        }

        func stretch(near position: Coordinate) -> RiddenPath.Stretch? { points.nearest(position).flatMap { stretchAt[$0] } }
    }
}
