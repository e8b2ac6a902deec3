/// Douglas–Peucker simplification: keeps the fewest points such that no dropped point lies
/// further than `tolerance` metres from the kept polyline. Iterative (explicit stack) so a
/// long trip cannot overflow the call stack.
public enum DouglasPeucker {
    /// The points kept, in order: always the first and last, then every point further than
    /// `tolerance` metres from the kept line. Fewer than 3 points come back unchanged.
    public static func simplify(_ points: [Coordinate], tolerance: Double) -> [Coordinate] {
        guard points.count > 2 else { return points }
        let plane = LocalPlane(origin: points[0])
        let xy = points.map { plane.project($0) }
        var keep = [Bool](repeating: false, count: points.count)
        keep[0] = true
        keep[points.count - 1] = true
        var stack: [(Int, Int)] = [(0, points.count - 1)]
        while let (first, last) = stack.popLast() {
            guard last > first + 1 else { continue }
            var worst = first, worstDistance = -1.0
            for i in (first + 1)..<last {
                // Distance to the segment, not the infinite line, so loops back are kept.
                let d2 = LocalPlane.squaredDistance(xy[i], segment: xy[first], xy[last])
                if d2 > worstDistance { worstDistance = d2; worst = i }
            }
            if worstDistance > tolerance * tolerance {
                keep[worst] = true
                stack.append((first, worst))
                stack.append((worst, last))
            }
        }
        var out: [Coordinate] = []
        for i in points.indices where keep[i] { out.append(points[i]) }
        return out
    }
}

extension Geodesic {
    /// Metres from `point` to the nearest point of the polyline `path` (nil for an
    /// empty path). Used to check that something placed on a trip lies on it.
    public static func distance(from point: Coordinate, toPath path: [Coordinate]) -> Double? {
        guard let first = path.first else { return nil }
        let plane = LocalPlane(origin: point)
        let p = plane.project(point)
        var nearest = LocalPlane.squaredDistance(p, segment: plane.project(first), plane.project(first))
        for (a, b) in zip(path, path.dropFirst()) {
            nearest = min(nearest, LocalPlane.squaredDistance(p, segment: plane.project(a), plane.project(b)))
        }
        return nearest.squareRoot()
    }
}
