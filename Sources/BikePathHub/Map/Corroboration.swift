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

    public func corroborate(reports: [ObstacleReport], passes: [TripPass]) -> [ReportedObstacle] {
        // Cells a little wider than the radius: a point within the radius of another, or of a
        // path step (steps are half a radius apart), is always in the 3 × 3 cells around it.
        let grid = MapGrid(cellMeters: radiusMeters * 1.25)
        var passByTrip: [String: Int] = [:]
        for (i, p) in passes.enumerated() { passByTrip[p.device + "\u{1}" + p.trip] = i }
        let directions = reports.map { r in
            passByTrip[r.device + "\u{1}" + r.trip].flatMap { direction(of: passes[$0].path, at: r.position) }
        }
        let spots = clusters(reports, directions: directions, grid: grid)
        var spotIndex: [MapGrid.Cell: [Int]] = [:]
        var centres: [Coordinate] = []
        var axes: [Double?] = []
        for (s, members) in spots.enumerated() {
            let n = Double(members.count)
            let centre = Coordinate(
                latitude: members.map { reports[$0].position.latitude }.reduce(0, +) / n,
                longitude: members.map { reports[$0].position.longitude }.reduce(0, +) / n)
            centres.append(centre)
            spotIndex[grid.cell(of: centre), default: []].append(s)
            axes.append(
                Self.axialMean(members.compactMap { directions[$0] })
                    ?? Self.axialMean(
                        members.compactMap {
                            passByTrip[reports[$0].device + "\u{1}" + reports[$0].trip].flatMap {
                                Self.heading(of: passes[$0].path, over: centre)
                            }
                        }))
        }
        // Each reporting trip's reports at each spot; then, for every trip within the radius of
        // a spot, its rides over it along the street: the reported ones and the silent ones.
        var reportsByTrip = Array(repeating: [String: Int](), count: spots.count)
        for (s, members) in spots.enumerated() {
            for m in members { reportsByTrip[s][reports[m].device + "\u{1}" + reports[m].trip, default: 0] += 1 }
        }
        var reported = Array(repeating: 0, count: spots.count), misses = Array(repeating: 0, count: spots.count)
        var seen = Array(repeating: Set<String>(), count: spots.count)
        for pass in passes {
            let key = pass.device + "\u{1}" + pass.trip
            for s in spotsNear(pass.path, grid: grid, index: spotIndex, spots: centres) {
                let rides = self.rides(of: pass.path, over: centres[s], along: axes[s])
                let hits = reportsByTrip[s][key] ?? 0
                // A reporting trip rode over it at least once (its path may be trimmed there);
                // a report per ride at most (two detections of one ride are one).
                let over = hits > 0 ? max(rides, 1) : rides
                reported[s] += min(hits, over)
                misses[s] += over - min(hits, over)
                if hits > 0 { seen[s].insert(key) }
            }
        }
        // Reporting trips that sent no path (or whose path never came within the radius): one ride each.
        for s in spots.indices { for (key, _) in reportsByTrip[s] where !seen[s].contains(key) { reported[s] += 1 } }
        return spots.enumerated().map { i, members in
            let group = members.map { reports[$0] }
            let riders = Set(group.map(\.device)).count
            let trips = reportsByTrip[i].count
            let c = confidence(reports: reported[i], misses: misses[i])
            let days = group.compactMap(\.day)
            return ReportedObstacle(
                position: centres[i], kind: Self.kind(of: group), riders: riders, reportingTrips: trips,
                passesWithoutReport: misses[i], confidence: c,
                corroborated: riders >= minRiders && c >= minConfidence, firstDay: days.min(), lastDay: days.max())
        }
        .sorted { ($0.position.latitude, $0.position.longitude, $0.kind) < ($1.position.latitude, $1.position.longitude, $1.kind) }
    }

    /// Reports grouped into spots, densest first (see the type's comment): indices into `reports`.
    private func clusters(_ reports: [ObstacleReport], directions: [Double?], grid: MapGrid) -> [[Int]] {
        var byCell: [MapGrid.Cell: [Int]] = [:]
        for (i, r) in reports.enumerated() { byCell[grid.cell(of: r.position), default: []].append(i) }
        func along(_ a: Int, _ b: Int) -> Bool {
            guard let da = directions[a], let db = directions[b] else { return true }
            return Self.axialDifference(da, db) <= alignmentDegrees
        }
        func neighbours(_ i: Int) -> [Int] {
            grid.neighbourhood(of: reports[i].position).flatMap { byCell[$0] ?? [] }.filter {
                $0 != i && Self.compatible(reports[i].kind, reports[$0].kind) && along(i, $0)
                    && Geodesic.distance(reports[i].position, reports[$0].position) <= radiusMeters
            }
        }
        let density = reports.indices.map { neighbours($0).count }
        let order = reports.indices.sorted { a, b in
            let (ra, rb) = (reports[a], reports[b])
            return (-density[a], ra.position.latitude, ra.position.longitude, ra.device, ra.trip, ra.kind)
                < (-density[b], rb.position.latitude, rb.position.longitude, rb.device, rb.trip, rb.kind)
        }
        var assigned = Array(repeating: false, count: reports.count)
        var spots: [[Int]] = []
        for seed in order where !assigned[seed] {
            let candidates = neighbours(seed).filter { !assigned[$0] }
            // A catch-all seed takes the kind most of its neighbours name, and then only
            // reports compatible with it: a pothole and a bump never share a spot through it.
            let kind = Self.kind(of: ([seed] + candidates).map { reports[$0] })
            let sameKind = candidates.filter { Self.compatible(reports[$0].kind, kind) }
            let direction = directions[seed] ?? Self.dominant(sameKind.compactMap { directions[$0] }, within: alignmentDegrees)
            var members = [seed]
            assigned[seed] = true
            for j in sameKind
            where direction == nil || directions[j] == nil || Self.axialDifference(direction!, directions[j]!) <= alignmentDegrees {
                assigned[j] = true
                members.append(j)
            }
            // In a fixed order, so that sums (the centre) do not depend on the input's order.
            spots.append(
                members.sorted { a, b in
                    let (ra, rb) = (reports[a], reports[b])
                    return (ra.position.latitude, ra.position.longitude, ra.device, ra.trip) < (
                        rb.position.latitude, rb.position.longitude, rb.device, rb.trip
                    )
                })
        }
        return spots
    }

    /// The most reported specific kind (not `irregularity`), ties by name; `irregularity`
    /// when no report names one.
    static func kind(of group: [ObstacleReport]) -> String {
        var counts: [String: Int] = [:]
        for r in group where r.kind != "irregularity" { counts[r.kind, default: 0] += 1 }
        return counts.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? "irregularity"
    }

    /// The axial mean of `headings` (degrees, 0…180): a spot's street, from its reports'
    /// directions. nil when there are none, or when they disagree (mean resultant length
    /// below 0.7): then every pass within the radius counts, whatever its direction.
    static func axialMean(_ headings: [Double]) -> Double? {
        guard !headings.isEmpty else { return nil }
        // Axial mean: double the angles so that 10° and 190° agree.
        let x = headings.map { cos(2 * $0 * .pi / 180) }.reduce(0, +), y = headings.map { sin(2 * $0 * .pi / 180) }.reduce(0, +)
        guard (x * x + y * y).squareRoot() / Double(headings.count) >= 0.7 else { return nil }
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

    /// The direction most of `headings` agree with (within `tolerance`); ties to the smallest.
    static func dominant(_ headings: [Double], within tolerance: Double) -> Double? {
        headings.max { a, b in
            let (na, nb) = (
                headings.filter { axialDifference($0, a) <= tolerance }.count, headings.filter { axialDifference($0, b) <= tolerance }.count
            )
            return na != nb ? na < nb : a > b
        }
    }

    /// How many times `path` rides over `point` along `axis`: runs of consecutive segments that
    /// ride over it (it lies within the radius and projects onto them) within
    /// `alignmentDegrees` of the axis, a run ending where the path turns back. A rider who
    /// turns at a crossing 10 m from the spot and rides away from it has a segment within the
    /// radius, along the street, that never went over it; an out-and-back trip rides over it
    /// twice: two chances to report it, as two trips would have. Counted once per trip, a
    /// false source that one ride in seven reports was reported on half the trips of the
    /// riders whose routes went back and forth over it (3 false spots at 1×, seed 1).
    /// Without an axis every segment over it counts, and a path within the radius rides over
    /// it at least once.
    func rides(of path: [Coordinate], over point: Coordinate, along axis: Double?) -> Int {
        var runs = 0
        var last: (dx: Double, dy: Double)? = nil
        for segment in Self.segments(of: path, around: point) {
            let over =
                segment.t >= 0 && segment.t <= 1 && segment.distance2 <= radiusMeters * radiusMeters
                && axis.map { Self.axialDifference($0, segment.heading) <= alignmentDegrees } ?? true
            guard over else { last = nil; continue }
            if let l = last, l.dx * segment.dx + l.dy * segment.dy > 0 {} else { runs += 1 }
            last = (segment.dx, segment.dy)
        }
        return axis == nil ? max(runs, 1) : runs
    }

    /// The heading (degrees, 0…180, axial) of the segment of `path` nearest to `point` among
    /// those `point` projects onto (nil when it projects onto none).
    static func heading(of path: [Coordinate], over point: Coordinate) -> Double? {
        segments(of: path, around: point).filter { $0.t >= 0 && $0.t <= 1 }.min { $0.distance2 < $1.distance2 }?.heading
    }

    /// The heading (degrees, 0…180, axial) of the segment of `path` nearest to `point`.
    public static func heading(of path: [Coordinate], near point: Coordinate) -> Double? {
        segments(of: path, around: point).min { $0.distance2 < $1.distance2 }?.heading
    }

    /// Each segment of `path` (of non-zero length) seen from `point`, on a local east/north
    /// plane around it (metres; exact enough over a street's length): where the point
    /// projects on the segment's line (`t`, 0…1 on the segment), its squared distance to the
    /// segment, and the segment's axial heading.
    private static func segments(of path: [Coordinate], around point: Coordinate) -> [(
        t: Double, distance2: Double, heading: Double, dx: Double, dy: Double
    )] {
        let eastPerDegree = 111_320 * cos(point.latitude * .pi / 180), northPerDegree = 111_320.0
        func project(_ c: Coordinate) -> (x: Double, y: Double) {
            ((c.longitude - point.longitude) * eastPerDegree, (c.latitude - point.latitude) * northPerDegree)
        }
        return zip(path, path.dropFirst()).compactMap { ca, cb in
            let (a, b) = (project(ca), project(cb))
            let (dx, dy) = (b.x - a.x, b.y - a.y)
            let length2 = dx * dx + dy * dy
            guard length2 > 0 else { return nil }
            let t = -(a.x * dx + a.y * dy) / length2  // the point is the origin
            let clamped = max(0, min(1, t))
            let (qx, qy) = (a.x + clamped * dx, a.y + clamped * dy)
            var h = atan2(dx, dy) * 180 / .pi
            if h < 0 { h += 180 }
            if h >= 180 { h -= 180 }
            return (t, qx * qx + qy * qy, h, dx, dy)
        }
    }

    /// The angle between two axial directions (0…90).
    static func axialDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 180)
        return min(d, 180 - d)
    }

    /// Spots whose anchor lies within the radius of the path: the path is walked in steps
    /// of half the radius and only spots in the grid cells around each step are measured.
    private func spotsNear(_ path: [Coordinate], grid: MapGrid, index: [MapGrid.Cell: [Int]], spots: [Coordinate]) -> Set<Int> {
        var found = Set<Int>()
        let segments = path.count == 1 ? [(path[0], path[0])] : Array(zip(path, path.dropFirst()))
        for (a, b) in segments {
            let length = Geodesic.distance(a, b)
            let steps = max(1, Int((length / (radiusMeters / 2)).rounded(.up)))
            // A segment with more steps than there are spots (a straight road simplified to
            // two points, a gap across a privacy zone, or a forged path: 1,000 km is 133,000
            // steps) is measured against every spot instead: the same test, at most
            // `spots.count` measurements. Walking a valid path of 25 points across the globe
            // took minutes and stalled every map answer (found by the contract test).
            if steps >= spots.count {
                for s in spots.indices where !found.contains(s) {
                    if (Geodesic.distance(from: spots[s], toPath: [a, b]) ?? .infinity) <= radiusMeters { found.insert(s) }
                }
                continue
            }
            for k in 0...steps {
                let t = Double(k) / Double(steps)
                let p = Coordinate(
                    latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
                for s in grid.neighbourhood(of: p).flatMap({ index[$0] ?? [] }) where !found.contains(s) {
                    if (Geodesic.distance(from: spots[s], toPath: [a, b]) ?? .infinity) <= radiusMeters { found.insert(s) }
                }
            }
        }
        return found
    }
}
