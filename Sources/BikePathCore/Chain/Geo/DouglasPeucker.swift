/// Douglas–Peucker simplification: keeps the fewest points such that no dropped point lies
/// further than `tolerance` metres from the kept polyline. Iterative (explicit stack) so a
/// long trip cannot overflow the call stack.
public enum DouglasPeucker {
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
            let (ax, ay) = xy[first], (bx, by) = xy[last]
            let dx = bx - ax, dy = by - ay
            let len2 = dx * dx + dy * dy
            var worst = first, worstDistance = -1.0
            for i in (first + 1)..<last {
                let (px, py) = xy[i]
                var d2: Double
                if len2 == 0 {
                    d2 = (px - ax) * (px - ax) + (py - ay) * (py - ay)
                } else {
                    // Distance to the segment, not the infinite line, so loops back are kept.
                    let t = max(0, min(1, ((px - ax) * dx + (py - ay) * dy) / len2))
                    let qx = ax + t * dx - px, qy = ay + t * dy - py
                    d2 = qx * qx + qy * qy
                }
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
