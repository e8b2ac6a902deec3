/// Scores the detector against the rider's marks of a labelled recording (`bikepathd
/// evaluate`, docs/evaluation.md "Rider-labelled rides").
///
/// A rider presses the button after passing the obstacle, so a detection matches a mark
/// when it lies from `secondsBefore` before the mark to `secondsAfter` after it, or
/// within `metres` of it along the track (a rider who stops to press: little distance,
/// much time). Each mark matches at most one detection and each detection at most one
/// mark: marks in time order take the nearest free detection in time.
public enum DetectorEvaluation {
    /// 5 s covers the reaction and the reach for the button at riding speed (20 km/h:
    /// 28 m); 1 s after allows for a press while the rear wheel is still on the obstacle.
    public static let secondsBefore = 5.0
    public static let secondsAfter = 1.0
    /// Along the track, either side: about two bicycle lengths past the GNSS error (5 m)
    /// plus the distance of a slow reaction (2 s at 10 km/h: 6 m), doubled.
    public static let metres = 25.0

    /// How a recording's detections compare with the rider's marks.
    public struct Score: Sendable, Equatable, Codable {
        /// The rider's marks.
        public var labels = 0
        /// The detector's candidates.
        public var detections = 0
        public var matchedLabels = 0
        /// Matched pairs where the detector named the rider's kind.
        public var kindAgreed = 0
        /// Length of the recording's track (its trips), metres.
        public var distanceMeters = 0.0

        /// Creates an all-zero score.
        public init() {}

        /// Matched marks over marks; nil without marks.
        public var recall: Double? { labels == 0 ? nil : Double(matchedLabels) / Double(labels) }
        /// Matched detections over detections; nil without detections, and without marks
        /// (an unlabelled ride says nothing about which candidates are real).
        public var precision: Double? { detections == 0 || labels == 0 ? nil : Double(matchedLabels) / Double(detections) }
        /// nil without a track.
        public var candidatesPerKm: Double? { distanceMeters > 0 ? Double(detections) / (distanceMeters / 1000) : nil }

        /// Sums over recordings (recall and precision are then pooled, not averaged).
        public static func + (a: Score, b: Score) -> Score {
            var s = a
            s.labels += b.labels
            s.detections += b.detections
            s.matchedLabels += b.matchedLabels
            s.kindAgreed += b.kindAgreed
            s.distanceMeters += b.distanceMeters
            return s
        }
    }

    /// The score of one recording from its chain outputs (rider marks are the chain's
    /// `.obstacle` outputs with source `.rider`).
    public static func score(_ outputs: [ChainOutput]) -> Score {
        var track = TrackOdometer()
        var marks: [ObstacleEvent] = [], detections: [ObstacleEvent] = []
        for output in outputs {
            switch output {
            case .trackPoint(let p): track.add(p)
            case .tripStarted: track.startSegment()
            case .obstacle(let e) where e.source == .rider: marks.append(e)
            case .obstacle(let e): detections.append(e)
            default: break
            }
        }
        var score = Score()
        score.labels = marks.count
        score.detections = detections.count
        score.distanceMeters = track.total
        var taken = Set<Int>()
        for mark in marks.sorted(by: { $0.time < $1.time }) {
            let markAt = track.distance(at: mark.time)
            let candidates = detections.indices.filter { i in
                guard !taken.contains(i) else { return false }
                let dt = detections[i].time.secondsSince(mark.time)
                if dt >= -secondsBefore && dt <= secondsAfter { return true }
                guard let a = markAt, let b = track.distance(at: detections[i].time) else { return false }
                return abs(a - b) <= metres
            }
            guard
                let best = candidates.min(by: {
                    abs(detections[$0].time.secondsSince(mark.time)) < abs(detections[$1].time.secondsSince(mark.time))
                })
            else { continue }
            taken.insert(best)
            score.matchedLabels += 1
            if detections[best].kind == mark.kind { score.kindAgreed += 1 }
        }
        return score
    }
}

/// Distance along a track at a sample time, by linear interpolation between its points.
struct TrackOdometer {
    private var times: [SampleTime] = []
    private var distances: [Double] = []
    private var last: Coordinate?

    var total: Double { distances.last ?? 0 }

    /// A new trip: no distance is counted from the previous trip's last point.
    mutating func startSegment() { last = nil }

    mutating func add(_ point: TrackPoint) {
        let step = last.map { Geodesic.distance($0, point.coordinate) } ?? 0
        times.append(point.time)
        distances.append(total + step)
        last = point.coordinate
    }

    /// nil outside the track's time span.
    func distance(at time: SampleTime) -> Double? {
        guard let first = times.first, let end = times.last, time >= first, time <= end else { return nil }
        var lo = 0, hi = times.count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if times[mid] <= time { lo = mid } else { hi = mid }
        }
        let span = times[hi].secondsSince(times[lo])
        guard span > 0 else { return distances[lo] }
        return distances[lo] + (distances[hi] - distances[lo]) * time.secondsSince(times[lo]) / span
    }
}
