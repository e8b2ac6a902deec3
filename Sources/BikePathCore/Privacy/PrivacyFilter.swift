#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Pure privacy rules applied on the device before anything is queued or sent:
/// zone membership and start/end trimming. No I/O, no clock; times are the
/// caller's (seconds since the trip's start).
public struct PrivacyFilter: Sendable {
    public let settings: PrivacySettings

    /// Creates a filter applying `settings`.
    public init(_ settings: PrivacySettings) { self.settings = settings }

    /// True when `c` lies inside (or on the edge of) any zone.
    public func isInsideZone(_ c: Coordinate) -> Bool {
        settings.zones.contains { Geodesic.distance($0.center, c) <= $0.radiusMeters }
    }

    /// The part of a trip that may leave the device.
    public struct TripWindow: Sendable, Equatable {
        /// Kept index range of the path (empty when nothing survives trimming).
        public var pathRange: Range<Int>
        /// Kept span, seconds since the trip's start.
        public var fromSeconds: Double
        public var toSeconds: Double
        /// The raw first and last positions; items this close to them are trimmed.
        public var start: Coordinate?
        public var end: Coordinate?
    }

    /// Finds the trimmed window of a path. `times` gives seconds since the trip's
    /// start for each point; when nil, times are estimated by spreading
    /// `durationSeconds` along the path in proportion to distance travelled
    /// (a simplified path carries no per-point times).
    public func window(path: [Coordinate], times: [Double]? = nil, durationSeconds: Double) -> TripWindow {
        let trim = settings.trim
        let fromSeconds = trim.seconds
        let toSeconds = durationSeconds - trim.seconds
        guard let first = path.first, let last = path.last else {
            return TripWindow(pathRange: 0..<0, fromSeconds: fromSeconds, toSeconds: toSeconds, start: nil, end: nil)
        }
        let t = times ?? Self.estimatedTimes(path, durationSeconds: durationSeconds)
        var lo = 0
        while lo < path.count, t[lo] < fromSeconds || Geodesic.distance(first, path[lo]) < trim.meters { lo += 1 }
        var hi = path.count
        while hi > lo, t[hi - 1] > toSeconds || Geodesic.distance(last, path[hi - 1]) < trim.meters { hi -= 1 }
        return TripWindow(pathRange: lo..<max(lo, hi), fromSeconds: fromSeconds, toSeconds: toSeconds, start: first, end: last)
    }

    /// The path points that may be uploaded: trimmed, then without zone points.
    public func uploadablePath(_ path: [Coordinate], window: TripWindow) -> [Coordinate] {
        path[window.pathRange].filter { !isInsideZone($0) }
    }

    /// Whether an item of the trip (obstacle, road segment end) may be uploaded.
    /// An item with no position is kept only if its time is inside the window;
    /// an item with neither is kept (it says nothing about where the rider was).
    public func mayUpload(_ c: Coordinate?, secondsSinceStart: Double?, window: TripWindow) -> Bool {
        if let s = secondsSinceStart, s < window.fromSeconds || s > window.toSeconds { return false }
        guard let c else { return true }
        if isInsideZone(c) { return false }
        if let start = window.start, Geodesic.distance(start, c) < settings.trim.meters { return false }
        if let end = window.end, Geodesic.distance(end, c) < settings.trim.meters { return false }
        return true
    }

    static func estimatedTimes(_ path: [Coordinate], durationSeconds: Double) -> [Double] {
        var cumulative = [0.0]
        cumulative.reserveCapacity(path.count)
        for i in path.indices.dropFirst() { cumulative.append(cumulative[i - 1] + Geodesic.distance(path[i - 1], path[i])) }
        let total = cumulative.last ?? 0
        guard total > 0 else {
            // Standing still: spread evenly in index order.
            let n = Double(max(1, path.count - 1))
            return path.indices.map { Double($0) / n * durationSeconds }
        }
        return cumulative.map { $0 / total * durationSeconds }
    }
}
