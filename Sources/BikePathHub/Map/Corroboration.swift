import BikePathCore
import Foundation

/// One confirmed obstacle on one rider's confirmed trip: detected by the device and kept
/// by the rider, or marked by the rider.
public struct ObstacleReport: Sendable, Equatable {
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
public struct ReportedObstacle: Sendable, Equatable {
    public var position: Coordinate
    public var kind: String
    /// Distinct devices that reported it: independent riders.
    public var riders: Int
    /// Confirmed trips that passed within the radius without reporting it.
    public var passesWithoutReport: Int
    public var confidence: Double
    public var corroborated: Bool
    public var firstDay: Int?
    public var lastDay: Int?
}

/// The corroboration rule (docs/hub.md, "Corroborated obstacles"). Pure: reports and
/// passes in, reported obstacles out; the same input gives the same map.
///
/// - Reports within `radiusMeters` of a spot's first report and of a compatible kind
///   form one spot (in a fixed order: south to north, west to east, then device).
/// - Each device counts once however often it reported the spot: `riders` are distinct.
/// - Every confirmed trip whose path passes within `radiusMeters` without reporting the
///   spot is a negative observation.
/// - `confidence` is the mean of a Beta(`priorReports`, `priorMisses`) prior updated with
///   the riders as successes and the silent passes as failures: it grows with every new
///   rider and decays with every trip that passes without a report.
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

    public init() {}

    /// Same kind, or either is `irregularity` (the detector's catch-all).
    public static func compatible(_ a: String, _ b: String) -> Bool { a == b || a == "irregularity" || b == "irregularity" }

    public func confidence(riders: Int, misses: Int) -> Double {
        (Double(riders) + priorReports) / (Double(riders + misses) + priorReports + priorMisses)
    }

    public func corroborate(reports: [ObstacleReport], passes: [TripPass]) -> [ReportedObstacle] {
        struct Spot { var anchor: Coordinate; var kind: String; var reports: [ObstacleReport] }
        // Cells a little wider than the radius: a spot within the radius of a point, or of a
        // path step (steps are half a radius apart), is always in the 3 × 3 cells around it.
        let grid = MapGrid(cellMeters: radiusMeters * 1.25)
        var spots: [Spot] = []
        var index: [MapGrid.Cell: [Int]] = [:]
        let ordered = reports.sorted {
            ($0.position.latitude, $0.position.longitude, $0.device, $0.trip) < ($1.position.latitude, $1.position.longitude, $1.device, $1.trip)
        }
        for r in ordered {
            let near = grid.neighbourhood(of: r.position).flatMap { index[$0] ?? [] }.sorted().first {
                Self.compatible(spots[$0].kind, r.kind) && Geodesic.distance(spots[$0].anchor, r.position) <= radiusMeters
            }
            if let near {
                spots[near].reports.append(r)
                if spots[near].kind == "irregularity" { spots[near].kind = r.kind }  // the specific kind names the spot
            } else {
                index[grid.cell(of: r.position), default: []].append(spots.count)
                spots.append(Spot(anchor: r.position, kind: r.kind, reports: [r]))
            }
        }
        var misses = Array(repeating: 0, count: spots.count)
        for pass in passes {
            for s in spotsNear(pass.path, grid: grid, index: index, spots: spots.map(\.anchor))
            where !spots[s].reports.contains(where: { $0.device == pass.device && $0.trip == pass.trip }) {
                misses[s] += 1
            }
        }
        return spots.enumerated().map { i, spot in
            let riders = Set(spot.reports.map(\.device)).count
            let n = Double(spot.reports.count)
            let centre = Coordinate(latitude: spot.reports.map(\.position.latitude).reduce(0, +) / n,
                                    longitude: spot.reports.map(\.position.longitude).reduce(0, +) / n)
            let c = confidence(riders: riders, misses: misses[i])
            let days = spot.reports.compactMap(\.day)
            return ReportedObstacle(position: centre, kind: spot.kind, riders: riders, passesWithoutReport: misses[i], confidence: c,
                                    corroborated: riders >= minRiders && c >= minConfidence, firstDay: days.min(), lastDay: days.max())
        }
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
