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
    /// Confirmed trips that rode along its street within the radius without reporting it.
    public var passesWithoutReport: Int
    public var confidence: Double
    public var corroborated: Bool
    public var firstDay: Int?
    public var lastDay: Int?
}

/// The corroboration rule (docs/hub.md, "Corroborated obstacles"). Pure: reports and
/// passes in, reported obstacles out; the same input, in any order, gives the same map.
///
/// - **Spots** are found where reports are densest: each report counts the compatible
///   reports within `radiusMeters`; the densest unassigned report (ties by position,
///   device, trip) seeds a spot and takes every unassigned compatible report within the
///   radius; then the next. Anchoring on the first report in a fixed order (the
///   southernmost) split one obstacle's reports into fragments, each judged on its own.
/// - **One unit for evidence both ways: the trip.** Trips that reported the spot are
///   the positives; trips that rode along the spot's street within the radius without
///   reporting it are the negatives. Counting devices one way and trips the other made
///   every repeated ride a point against the obstacle.
/// - **Along the street only.** A silent pass counts when the pass's nearest segment is
///   within `alignmentDegrees` of the spot's street, the direction the reporting trips
///   rode there: riders on a crossing street 10 m away never had the chance to hit it.
/// - `confidence` is the mean of a Beta(`priorReports`, `priorMisses`) prior updated with
///   those positives and negatives: it grows with every report and decays with every
///   trip that rides over the spot and reports nothing.
/// - A spot is `corroborated` with at least `minRiders` distinct devices (so one device
///   can never do it alone) and `confidence` at least `minConfidence`.
public struct CorroborationRule: Sendable, Equatable {
    /// Consumer GNSS puts a fix within ~5 m (CEP50) and the detector within one wheel
    /// base; two reports 15 m apart are one spot.
    public var radiusMeters = 15.0
    public var minRiders = 2
    public var minConfidence = 0.5
    public var priorReports = 1.0
    public var priorMisses = 1.0
    /// Streets cross at 60–90°; a rider on the same street rides within a few degrees of
    /// it (GNSS heading noise at 4 m spacing is ~10°).
    public var alignmentDegrees = 30.0

    public init() {}

    /// Same kind, or either is `irregularity` (the detector's catch-all).
    public static func compatible(_ a: String, _ b: String) -> Bool { a == b || a == "irregularity" || b == "irregularity" }

    public func confidence(reports: Int, misses: Int) -> Double {
        (Double(reports) + priorReports) / (Double(reports + misses) + priorReports + priorMisses)
    }

    public func corroborate(reports: [ObstacleReport], passes: [TripPass]) -> [ReportedObstacle] {
        // Cells a little wider than the radius: a point within the radius of another, or of a
        // path step (steps are half a radius apart), is always in the 3 × 3 cells around it.
        let grid = MapGrid(cellMeters: radiusMeters * 1.25)
        let spots = clusters(reports, grid: grid)
        var passByTrip: [String: Int] = [:]
        for (i, p) in passes.enumerated() { passByTrip[p.device + "\u{1}" + p.trip] = i }
        var spotIndex: [MapGrid.Cell: [Int]] = [:]
        var centres: [Coordinate] = []
        var axes: [Double?] = []
        for (s, members) in spots.enumerated() {
            let n = Double(members.count)
            let centre = Coordinate(latitude: members.map { reports[$0].position.latitude }.reduce(0, +) / n,
                                    longitude: members.map { reports[$0].position.longitude }.reduce(0, +) / n)
            centres.append(centre)
            spotIndex[grid.cell(of: centre), default: []].append(s)
            axes.append(streetAxis(at: centre, paths: members.compactMap { passByTrip[reports[$0].device + "\u{1}" + reports[$0].trip].map { passes[$0].path } }))
        }
        var misses = Array(repeating: 0, count: spots.count)
        let reportingTrips = spots.map { Set($0.map { reports[$0].device + "\u{1}" + reports[$0].trip }) }
        for pass in passes {
            let key = pass.device + "\u{1}" + pass.trip
            for s in spotsNear(pass.path, grid: grid, index: spotIndex, spots: centres) where !reportingTrips[s].contains(key) {
                // Along the street: some stretch of the pass within the radius runs with it.
                if let axis = axes[s],
                   !Self.headings(of: pass.path, within: radiusMeters, of: centres[s]).contains(where: { Self.axialDifference(axis, $0) <= alignmentDegrees }) {
                    continue
                }
                misses[s] += 1
            }
        }
        return spots.enumerated().map { i, members in
            let group = members.map { reports[$0] }
            let riders = Set(group.map(\.device)).count
            let trips = reportingTrips[i].count
            let c = confidence(reports: trips, misses: misses[i])
            let days = group.compactMap(\.day)
            return ReportedObstacle(position: centres[i], kind: Self.kind(of: group), riders: riders, reportingTrips: trips,
                                    passesWithoutReport: misses[i], confidence: c,
                                    corroborated: riders >= minRiders && c >= minConfidence, firstDay: days.min(), lastDay: days.max())
        }
        .sorted { ($0.position.latitude, $0.position.longitude, $0.kind) < ($1.position.latitude, $1.position.longitude, $1.kind) }
    }

    /// Reports grouped into spots, densest first (see the type's comment): indices into `reports`.
    private func clusters(_ reports: [ObstacleReport], grid: MapGrid) -> [[Int]] {
        var byCell: [MapGrid.Cell: [Int]] = [:]
        for (i, r) in reports.enumerated() { byCell[grid.cell(of: r.position), default: []].append(i) }
        func neighbours(_ i: Int) -> [Int] {
            grid.neighbourhood(of: reports[i].position).flatMap { byCell[$0] ?? [] }.filter {
                $0 != i && Self.compatible(reports[i].kind, reports[$0].kind)
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
            var members = [seed]
            assigned[seed] = true
            for j in candidates where Self.compatible(reports[j].kind, kind) {
                assigned[j] = true
                members.append(j)
            }
            // In a fixed order, so that sums (the centre) do not depend on the input's order.
            spots.append(members.sorted { a, b in
                let (ra, rb) = (reports[a], reports[b])
                return (ra.position.latitude, ra.position.longitude, ra.device, ra.trip) < (rb.position.latitude, rb.position.longitude, rb.device, rb.trip)
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

    /// The street's direction at `point` (degrees, 0…180): the axial mean of the reporting
    /// trips' headings there. nil when no reporting trip sent a path, or when their headings
    /// disagree (mean resultant length below 0.7): then every pass within the radius counts,
    /// whatever its direction.
    func streetAxis(at point: Coordinate, paths: [[Coordinate]]) -> Double? {
        // Each reporting trip's direction over the spot: the stretch of its path nearest to
        // the spot among those the spot projects onto (the nearest stretch at all when its
        // path, simplified or trimmed, has none). Not its *first* stretch within 30 m: a
        // trip that came along the crossing street and turned at a crossing 5–12 m from the
        // spot has a first stretch on the crossing street that the spot projects onto (at
        // the crossing), 5–12 m away; its stretch along the spot's street lies within the
        // spots' GNSS error (1–2 m for the mean of a few reports). Taking the first made the
        // directions of the reporting trips disagree at half the obstacles near crossings
        // (riders turn at one crossing in two), the street unknown, every rider on the
        // crossing street a silent pass, and those obstacles unfound: 22 of the 33 missed
        // at 1× on the city of seed 1 (recall 78.0 → 92.7 %, precision 100 % both).
        let headings = paths.compactMap { Self.heading(of: $0, over: point) ?? Self.heading(of: $0, near: point) }
        guard !headings.isEmpty else { return nil }
        // Axial mean: double the angles so that 10° and 190° agree.
        let x = headings.map { cos(2 * $0 * .pi / 180) }.reduce(0, +), y = headings.map { sin(2 * $0 * .pi / 180) }.reduce(0, +)
        guard (x * x + y * y).squareRoot() / Double(headings.count) >= 0.7 else { return nil }
        let mean = atan2(y, x) * 90 / .pi
        return mean < 0 ? mean + 180 : mean
    }

    /// The headings (degrees, 0…180, axial) of the segments of `path` that ride over `point`:
    /// it lies within `radius` of the segment and projects onto it (not beyond an end). A
    /// rider who turns at a crossing 10 m from the spot and rides away from it has a segment
    /// within the radius, along the street, that never went over it.
    static func headings(of path: [Coordinate], within radius: Double, of point: Coordinate) -> [Double] {
        segments(of: path, around: point).filter { $0.t >= 0 && $0.t <= 1 && $0.distance2 <= radius * radius }.map(\.heading)
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
    private static func segments(of path: [Coordinate], around point: Coordinate) -> [(t: Double, distance2: Double, heading: Double)] {
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
            return (t, qx * qx + qy * qy, h)
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
            // took minutes and stalled every map answer (issue 23, found by the contract test).
            if steps >= spots.count {
                for s in spots.indices where !found.contains(s) {
                    if (Geodesic.distance(from: spots[s], toPath: [a, b]) ?? .infinity) <= radiusMeters { found.insert(s) }
                }
                continue
            }
            for k in 0...steps {
                let t = Double(k) / Double(steps)
                let p = Coordinate(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
                for s in grid.neighbourhood(of: p).flatMap({ index[$0] ?? [] }) where !found.contains(s) {
                    if (Geodesic.distance(from: spots[s], toPath: [a, b]) ?? .infinity) <= radiusMeters { found.insert(s) }
                }
            }
        }
        return found
    }
}
