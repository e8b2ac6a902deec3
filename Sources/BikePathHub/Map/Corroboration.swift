import BikePathCore
import Foundation

/// One confirmed obstacle on one rider's confirmed trip: detected by the device and kept
/// by the rider, or marked by the rider.
public struct ObstacleReport: Sendable, Equatable, Codable {
    public var device: String
    public var trip: String
    public var kind: String
    public var position: Coordinate
    /// UTC day of the trip (days since 1970-01-01), when the device knew the time.
    public var day: Int?

    public init(device: String, trip: String, kind: String, position: Coordinate, day: Int?) {
        (self.device, self.trip, self.kind, self.position, self.day) = (device, trip, kind, position, day)
    }
}

/// The path of one confirmed trip: every spot it passes is a chance to report.
public struct TripPass: Sendable, Equatable {
    public var device: String
    public var trip: String
    public var path: [Coordinate]

    public init(device: String, trip: String, path: [Coordinate]) {
        (self.device, self.trip, self.path) = (device, trip, path)
    }
}

/// Confirmed obstacles of several riders merged into one spot.
public struct ReportedObstacle: Sendable, Equatable, Codable {
    public var position: Coordinate
    public var kind: String
    /// Distinct devices that reported it: independent riders.
    public var riders: Int
    /// Confirmed trips that reported it (a rider who rides past it daily reports it on many).
    public var reportingTrips: Int
    /// Rides over it along its street that did not report it (a trip out and back along the
    /// street rides over it twice; a trip that reported it on one ride of two, once).
    public var passesWithoutReport: Int
    /// The probability that it is an obstacle rather than a false source (`CorroborationRule.confidence`).
    public var confidence: Double
    public var corroborated: Bool
    public var firstDay: Int?
    public var lastDay: Int?
}

/// The corroboration rule (docs/hub.md, "Corroborated obstacles"). Pure: reports and
/// passes in, reported obstacles out; the same input, in any order, gives the same map.
/// Local: a spot's result depends only on reports and paths within a few tens of metres.
///
/// - **Each report's direction**: the way its trip rode where it reported (its path's
///   nearest segment that the report projects onto), unknown when the trip turned within
///   the radius (another segment over the report runs another way).
/// - **Spots** are found where reports are densest: each report counts the compatible
///   reports within `radiusMeters` (compatible kinds, and directions within
///   `alignmentDegrees` unless one is unknown); the densest unassigned report (ties by
///   position, device, trip) seeds a spot and takes every unassigned compatible report
///   within the radius; then the next. A seed of unknown direction takes the direction most
///   of its neighbours rode, as a catch-all seed takes their kind. Anchoring on the first
///   report in a fixed order (the southernmost) split one obstacle's reports into
///   fragments; ignoring directions merged two obstacles 10 m apart on the two streets of a
///   crossing into one spot of no street.
/// - **The street** of a spot is the axial mean of its reports' directions.
/// - **One unit for evidence both ways: the ride over the spot.** Every trip within the
///   radius counts its rides over the spot along its street (`rides`: runs of segments
///   that the spot projects onto, within the radius, within `alignmentDegrees` of the
///   street; an out-and-back trip rides over it twice); each of a trip's reports at the spot
///   is a reported ride (at most one per ride), each other ride a silent one
///   (`passesWithoutReport`). Riders on a crossing street 10 m away never had the chance to
///   hit it: no evidence either way.
/// - `confidence` is the probability that the spot is an obstacle rather than a false
///   source: the likelihood ratio of those rides under two report rates,
///   `obstacleReportRate` and `falseReportRate`, at even prior odds.
/// - A spot is `corroborated` with at least `minRiders` distinct devices (so one device
///   can never do it alone) and `confidence` at least `minConfidence`.
public struct CorroborationRule: Sendable, Equatable {
    /// Consumer GNSS puts a fix within ~5 m (CEP50) and the detector within one wheel
    /// base; two reports 15 m apart are one spot.
    public var radiusMeters = 15.0
    public var minRiders = 2
    public var minConfidence = 0.5
    /// What a real obstacle looks like: reported on about half the rides over it. The
    /// detector misses a hit by one wheel or at low speed, riders steer around what they
    /// see (a commuter learns the pothole), and not every candidate is kept.
    public var obstacleReportRate = 0.5
    /// What a false source looks like: a manhole cover or tram rails fool the detector on a
    /// minority of rides, up to one in five; random false candidates (0.1 per km) far fewer.
    public var falseReportRate = 0.2
    /// Streets cross at 60–90°; a rider on the same street rides within a few degrees of
    /// it (GNSS heading noise at 4 m spacing is ~10°).
    public var alignmentDegrees = 30.0

    public init() {}

    /// Same kind, or either is `irregularity` (the detector's catch-all).
    public static func compatible(_ a: String, _ b: String) -> Bool { a == b || a == "irregularity" || b == "irregularity" }

    /// The probability that a spot is an obstacle rather than a false source, given `reports`
    /// rides over it that reported it and `misses` that did not, at even prior odds: the
    /// likelihood ratio of the two report rates. Each report multiplies the odds by
    /// 0.5 / 0.2 = 2.5, each silent ride by 0.5 / 0.8 = 0.625; even odds at a report rate
    /// of 0.34 (ln 1.6 / ln 4), between the two. Two reports and no silent ride: 0.86; two
    /// reports and six silent rides: 0.27; 4 reports in 10 rides: 0.70; 2 in 12: 0.05.
    ///
    /// Before, `confidence` was the mean of a Beta(1, 1) prior updated with the rides and a
    /// spot needed 0.5: a report on at least half the rides, even odds between rates of 0.8
    /// and 0.2, so an obstacle reported on 3 rides in 5 with a dozen rides over it was missed
    /// one time in six (recall 87–91 % at 1× on the simulated city, seeds 1–3, counting
    /// rides). The rates are assumptions about the world, not fitted: with 0.5–0.7 and
    /// 0.1–0.2 the city's recall at 1× stays within 95–100 % and its precision above 98 %.
    public func confidence(reports: Int, misses: Int) -> Double {
        let (p, q) = (obstacleReportRate, falseReportRate)
        let logOdds = Double(reports) * log(p / q) + Double(misses) * log((1 - p) / (1 - q))
        return 1 / (1 + exp(-logOdds))
    }

    /// The rule on reports and trip paths: each trip's evidence (`MapEvidence.trip`), summed,
    /// then read. A reporting trip that sent no path reports in no known direction.
    public func corroborate(reports: [ObstacleReport], passes: [TripPass]) -> [ReportedObstacle] {
        var byTrip: [String: [ObstacleReport]] = [:]
        for r in reports { byTrip[r.device + "\u{1}" + r.trip, default: []].append(r) }
        var evidence = MapEvidence()
        var withPath = Set<String>()
        for p in passes {
            let key = p.device + "\u{1}" + p.trip
            let reports = withPath.insert(key).inserted ? byTrip[key] ?? [] : []
            evidence.add(
                MapEvidence.trip(reports: reports, path: p.path, stretches: [], rule: self, pathStatus: PathStatusRule()))
        }
        for (key, trip) in byTrip where !withPath.contains(key) { for r in trip { evidence.add(r, direction: nil) } }
        return corroborate(evidence)
    }

    /// The spots of `evidence` (see the type's comment), sorted by position and kind.
    public func corroborate(_ evidence: MapEvidence) -> [ReportedObstacle] {
        corroborate(gather(evidence), passes: evidence.passes)
    }

    /// The spots of some evidence before they are judged: its report groups, clustered.
    public struct Gathered: Sendable {
        let groups: [ReportGroup]
        let clusters: [[Int]]
        /// Each cluster's reports summed (its centre, street and counts).
        let tallies: [MapEvidence.ReportTally]
        /// Each cluster's distinct riders.
        let riders: [Int]
        /// The 10 m cells whose rides judge the spots (`MapEvidence.passes`): a store reads
        /// the rides of these cells only, not of every cell ridden.
        public let cells: Set<MapGrid.Cell>
    }

    /// Clusters the reports of `evidence` into spots (its rides are not read): a remake
    /// clusters once, reads the rides at the spots' cells, then judges them.
    public func gather(_ evidence: MapEvidence) -> Gathered { gather(ReportGroup.all(in: evidence)) }

    /// Clusters report groups (in the order `ReportGroup.Collector` gives them) into spots.
    /// `corroborableOnly`: keeps only the spots of at least `minRiders` riders, the only ones
    /// that can be corroborated (a tile's slice keeps no other): their rides need not be read
    /// nor they judged. At 100× the city, 1 spot in 4 near a remake's tiles is one rider's.
    public func gather(_ groups: [ReportGroup], corroborableOnly: Bool = false) -> Gathered {
        var clusters = clusters(groups)
        var riders = clusters.map { members in
            // A group's riders are distinct already; only a spot of several groups needs a union
            // (a set sized first: growing it was a tenth of the gathering at 100× the city).
            members.count == 1
                ? groups[members[0]].devices.count
                : members.reduce(into: Set<String>(minimumCapacity: members.map { groups[$0].devices.count }.reduce(0, +))) {
                    $0.formUnion(groups[$1].devices)
                }.count
        }
        if corroborableOnly {
            let kept = riders.indices.filter { riders[$0] >= minRiders }
            (clusters, riders) = (kept.map { clusters[$0] }, kept.map { riders[$0] })
        }
        let tallies = clusters.map { Self.tally(of: $0.map { groups[$0] }) }
        return Gathered(
            groups: groups, clusters: clusters, tallies: tallies, riders: riders,
            cells: Set(tallies.map { MapEvidence.grid.cell(of: $0.position) }))
    }

    /// The spots of `gathered`, judged by `passes` (those of its cells at least).
    public func corroborate(_ gathered: Gathered, passes: [MapEvidence.PassKey: Int]) -> [ReportedObstacle] {
        gathered.clusters.indices.map { i in
            spot(
                of: gathered.clusters[i].map { gathered.groups[$0] }, tally: gathered.tallies[i], riders: gathered.riders[i], passes: passes
            )
        }
        .sorted { ($0.position.latitude, $0.position.longitude, $0.kind) < ($1.position.latitude, $1.position.longitude, $1.kind) }
    }

    /// The sum of a spot's report groups.
    private static func tally(of members: [ReportGroup]) -> MapEvidence.ReportTally {
        var tally = members[0].tally
        for m in members.dropFirst() { tally.add(m.tally) }
        return tally
    }

    /// One spot from its report groups, their sum and their riders: its centre is their reports' mean, its
    /// street their directions' axial mean, its rides those counted at its centre's cell along the street.
    private func spot(of members: [ReportGroup], tally: MapEvidence.ReportTally, riders: Int, passes: [MapEvidence.PassKey: Int])
        -> ReportedObstacle
    {
        let centre = tally.position
        let known = members.filter { $0.sector >= 0 }.map(\.tally.count).reduce(0, +)
        let axis = Self.axialMean(x: Double(tally.axisX), y: Double(tally.axisY), of: Double(known) * MapEvidence.axisUnits)
        let cell = MapEvidence.grid.cell(of: centre)
        let rides = (0..<MapEvidence.sectors).filter { s in
            axis.map { Self.axialDifference($0, (Double(s) + 0.5) * MapEvidence.sectorDegrees) <= alignmentDegrees } ?? true
        }
        .map { passes[MapEvidence.PassKey(cell: cell, sector: $0)] ?? 0 }.reduce(0, +)
        // A reporting trip whose path was trimmed there rode over it without a counted ride.
        let misses = max(0, rides - tally.count)
        let c = confidence(reports: tally.count, misses: misses)
        return ReportedObstacle(
            position: centre, kind: Self.kind(of: members.map { ($0.kind, $0.tally.count) }), riders: riders,
            reportingTrips: tally.count, passesWithoutReport: misses, confidence: c,
            corroborated: riders >= minRiders && c >= minConfidence, firstDay: tally.firstDay, lastDay: tally.lastDay)
    }

    /// Report groups gathered into spots, densest first (see the type's comment): indices into `groups`.
    private func clusters(_ groups: [ReportGroup]) -> [[Int]] {
        // Cells a little wider than the radius: a point within the radius of another is
        // always in the 3 × 3 cells around it.
        let grid = MapGrid(cellMeters: radiusMeters * 1.25)
        var byCell: [MapGrid.Cell: [Int]] = [:]
        let positions = groups.map(\.position), directions = groups.map(\.direction)
        for (i, p) in positions.enumerated() { byCell[grid.cell(of: p), default: []].append(i) }
        func along(_ a: Int, _ b: Int) -> Bool {
            guard let da = directions[a], let db = directions[b] else { return true }
            return Self.axialDifference(da, db) <= alignmentDegrees
        }
        // Lower bounds of the metres a degree spans on WGS84, 0.1 % under (the meridian's at
        // the equator, 110,574 m; east, the equator's 111,319 m × the cosine of the latitude
        // nearer a pole): a pair farther apart by these is beyond the radius without the exact
        // distance, whose trigonometry was a fifth to a quarter of the clustering at 100× the city.
        let (north, east) = (110_574 * 0.999, 111_319 * 0.999)
        let cosines = positions.map { cos($0.latitude * .pi / 180) }
        let radius2 = radiusMeters * radiusMeters
        func neighbours(_ i: Int) -> [Int] {
            var found: [Int] = []
            for cell in grid.neighbourhood(of: positions[i]) {
                for j in byCell[cell] ?? [] where j != i {
                    let dn = (positions[i].latitude - positions[j].latitude) * north
                    let de = (positions[i].longitude - positions[j].longitude) * east * min(cosines[i], cosines[j])
                    guard dn * dn + de * de <= radius2, Self.compatible(groups[i].kind, groups[j].kind), along(i, j),
                        Geodesic.distance(positions[i], positions[j]) <= radiusMeters
                    else { continue }
                    found.append(j)
                }
            }
            return found
        }
        // Found once: the seeds look at their neighbours again (at 100× the city, a third of
        // the groups are seeds, and found theirs a second time).
        let near = groups.indices.map(neighbours)
        let density = groups.indices.map { i in groups[i].tally.count - 1 + near[i].map { groups[$0].tally.count }.reduce(0, +) }
        // `groups` is in a fixed order (`ReportGroup.Place`): the index breaks the last ties.
        let order = groups.indices.sorted { a, b in
            (-density[a], positions[a].latitude, positions[a].longitude, a) < (
                -density[b], positions[b].latitude, positions[b].longitude, b
            )
        }
        var assigned = Array(repeating: false, count: groups.count)
        var spots: [[Int]] = []
        for seed in order where !assigned[seed] {
            let candidates = near[seed].filter { !assigned[$0] }
            // A catch-all seed takes the kind most of its neighbours name, and then only
            // reports compatible with it: a pothole and a bump never share a spot through it.
            let kind = Self.kind(of: ([seed] + candidates).map { (groups[$0].kind, groups[$0].tally.count) })
            let sameKind = candidates.filter { Self.compatible(groups[$0].kind, kind) }
            let direction =
                directions[seed]
                ?? Self.dominant(sameKind.compactMap { g in directions[g].map { ($0, groups[g].tally.count) } }, within: alignmentDegrees)
            var members = [seed]
            assigned[seed] = true
            for j in sameKind
            where direction == nil || directions[j] == nil || Self.axialDifference(direction!, directions[j]!) <= alignmentDegrees {
                assigned[j] = true
                members.append(j)
            }
            spots.append(members.sorted())
        }
        return spots
    }

    /// The most reported specific kind (not `irregularity`), ties by name; `irregularity`
    /// when no report names one.
    static func kind(of counts: [(kind: String, count: Int)]) -> String {
        var byKind: [String: Int] = [:]
        for (kind, n) in counts where kind != "irregularity" { byKind[kind, default: 0] += n }
        return byKind.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "irregularity"
    }

    /// The axial mean of directions given as the sums of their doubled angles' cosines `x`
    /// and sines `y` (degrees, 0…180): a spot's street. nil when there are none, or when
    /// they disagree (mean resultant length below 0.7 of `weight`, their number; 0 asks for
    /// no threshold): then every ride over it counts, whatever its direction.
    static func axialMean(x: Double, y: Double, of weight: Double) -> Double? {
        guard x != 0 || y != 0 else { return nil }
        guard weight == 0 || (x * x + y * y).squareRoot() / weight >= 0.7 else { return nil }
        let mean = atan2(y, x) * 90 / .pi
        return mean < 0 ? mean + 180 : mean
    }

    /// The direction (degrees, 0…180, axial) `path` rode at `point`: its nearest segment among
    /// those that ride over `point` (it lies within the radius and projects onto the segment,
    /// not beyond an end); the nearest segment at all when none does (a path simplified or
    /// trimmed there). Not its *first* segment within reach: a trip that came along the
    /// crossing street and turned at a crossing 5–12 m from the obstacle has a first segment
    /// on the crossing street, 5–12 m away, that the point projects onto at the crossing;
    /// taking it made the reporting trips disagree at half the obstacles near crossings
    /// (riders turn at one crossing in two), their street unknown and every rider of the
    /// crossing street a silent pass: 22 of the 33 obstacles missed at 1× (seed 1).
    ///
    /// nil (unknown) when another segment over `point` runs another way: the trip turned
    /// within the radius, and the report may belong to either street. Such a report joins a
    /// spot of either direction; forcing one made 1 report in 10 near crossings (a GNSS error
    /// of 4 m against 5–12 m to the crossing) a fragment of its own, and its ride a silent one.
    func direction(of path: [Coordinate], at point: Coordinate) -> Double? {
        let over = Self.segments(of: path, around: point).filter { $0.t >= 0 && $0.t <= 1 && $0.distance2 <= radiusMeters * radiusMeters }
        guard let nearest = over.min(by: { $0.distance2 < $1.distance2 }) else { return Self.heading(of: path, near: point) }
        return over.contains { Self.axialDifference($0.heading, nearest.heading) > alignmentDegrees } ? nil : nearest.heading
    }

    /// The direction most of `headings` agree with (within `tolerance`), each weighed by its
    /// reports; ties to the smallest.
    static func dominant(_ headings: [(heading: Double, weight: Int)], within tolerance: Double) -> Double? {
        func support(_ h: Double) -> Int { headings.filter { axialDifference($0.heading, h) <= tolerance }.map(\.weight).reduce(0, +) }
        return headings.map(\.heading).max { a, b in
            let (na, nb) = (support(a), support(b))
            return na != nb ? na < nb : a > b
        }
    }

    /// The heading (degrees, 0…180, axial) of the segment of `path` nearest to `point`.
    public static func heading(of path: [Coordinate], near point: Coordinate) -> Double? {
        segments(of: path, around: point).min { $0.distance2 < $1.distance2 }?.heading
    }

    /// Each segment of `path` (of non-zero length) seen from `point` (`seen`).
    private static func segments(of path: [Coordinate], around point: Coordinate) -> [(
        t: Double, distance2: Double, heading: Double, dx: Double, dy: Double
    )] {
        zip(path, path.dropFirst()).compactMap { seen($0, $1, from: point) }
    }

    /// The segment from `ca` to `cb` seen from `point`, on a local east/north plane around it
    /// (metres; exact enough over a street's length): where the point projects on the
    /// segment's line (`t`, 0…1 on the segment), its squared distance to the segment, the
    /// segment's axial heading and its east and north extent. nil when it has no length.
    /// `eastPerDegree`: metres per degree of longitude there, when the caller knows it.
    static func seen(_ ca: Coordinate, _ cb: Coordinate, from point: Coordinate, eastPerDegree: Double? = nil) -> (
        t: Double, distance2: Double, heading: Double, dx: Double, dy: Double
    )? {
        let eastPerDegree = eastPerDegree ?? 111_320 * cos(point.latitude * .pi / 180), northPerDegree = 111_320.0
        func project(_ c: Coordinate) -> (x: Double, y: Double) {
            ((c.longitude - point.longitude) * eastPerDegree, (c.latitude - point.latitude) * northPerDegree)
        }
        let (a, b) = (project(ca), project(cb))
        let (dx, dy) = (b.x - a.x, b.y - a.y)
        let length2 = dx * dx + dy * dy
        guard length2 > 0 else { return nil }
        let t = -(a.x * dx + a.y * dy) / length2  // the point is the origin
        let clamped = max(0, min(1, t))
        let (qx, qy) = (a.x + clamped * dx, a.y + clamped * dy)
        return (t, qx * qx + qy * qy, axialHeading(dx, dy), dx, dy)
    }

    /// The axial heading (degrees, 0…180) of an east and north extent.
    static func axialHeading(_ dx: Double, _ dy: Double) -> Double {
        var h = atan2(dx, dy) * 180 / .pi
        if h < 0 { h += 180 }
        if h >= 180 { h -= 180 }
        return h
    }

    /// The angle between two axial directions (0…90).
    static func axialDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 180)
        return min(d, 180 - d)
    }
}
