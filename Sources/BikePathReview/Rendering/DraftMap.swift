import BikePathCore
import BikePathStore
import Foundation

/// The draft's map as SVG: the path to scale, its road-quality stretches coloured
/// along it, and each shown obstacle as a numbered dot (the number the page lists it by).
public struct DraftMap: Sendable {
    public let projection: PathProjection
    let draft: DraftDocument
    let shown: [DraftDocument.Obstacle]

    /// The canvas width: a 360 px phone screen less the page's 2 × 8 px padding and the
    /// map's 2 × 1 px border leaves 342; 328 keeps 14 px spare, so no page scrolls sideways
    /// (at 360 the map alone pushed the page to 378 px).
    public static let width = 328.0

    /// `shown`: the obstacles numbered on the page, in that order.
    public init(_ draft: DraftDocument, shown: [DraftDocument.Obstacle]) {
        self.draft = draft
        self.shown = shown
        projection = PathProjection(fitting: draft.path + shown.compactMap(\.coordinate), width: Self.width)
    }

    /// The stroke colour of a path status (green good … red needs maintenance).
    public static func colour(_ status: PathStatus) -> String {
        switch status {
        case .optimal: "#2a9d3a"
        case .medium: "#e0b000"
        case .sufficient: "#e07000"
        case .requiresMaintenance: "#c0162b"
        }
    }

    public var svg: String { svg() }

    /// `links`: each numbered dot is a link to its candidate on the page (`#cand-N`), for the
    /// map drawn inline in the draft page — a tap on a dot opens that candidate and adds
    /// nothing. `spot`: a ring at a canvas point (the spot the rider picked in add mode).
    /// `background`: false over street tiles, which then show through.
    public func svg(links: Bool = false, spot: (x: Double, y: Double)? = nil, background: Bool = true) -> String {
        let p = projection
        func xy(_ c: Coordinate) -> String {
            let q = p.point(c)
            return String(format: "%.1f,%.1f", q.x, q.y)
        }
        var parts = [
            """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(p.width)) \(Int(p.height))" width="\(Int(p.width))" \
            height="\(Int(p.height))">
            """
        ]
        if background { parts.append("<rect width=\"100%\" height=\"100%\" fill=\"#f6f6f0\"/>") }
        parts.append("<polyline fill=\"none\" stroke=\"#555\" stroke-width=\"3\" points=\"\(draft.path.map(xy).joined(separator: " "))\"/>")
        for stretch in draft.roadQuality {
            let points = Self.pathBetween(draft.path, stretch.start, stretch.end)
            guard points.count > 1 else { continue }
            parts.append(
                "<polyline fill=\"none\" stroke=\"\(Self.colour(stretch.status))\" stroke-width=\"6\" stroke-linecap=\"round\" "
                    + "points=\"\(points.map(xy).joined(separator: " "))\"/>")
        }
        // With no street map under it, start, end and north are what orient the rider:
        // start a green dot, end a black square, north up (the projection never rotates).
        if let first = draft.path.first, let last = draft.path.last {
            let a = p.point(first), b = p.point(last)
            parts.append(
                String(
                    format: "<circle class=\"start\" cx=\"%.1f\" cy=\"%.1f\" r=\"6\" fill=\"#2a9d3a\" stroke=\"#fff\" stroke-width=\"2\"/>",
                    a.x, a.y)
                    + String(
                        format:
                            "<rect class=\"end\" x=\"%.1f\" y=\"%.1f\" width=\"11\" height=\"11\" fill=\"#111\" stroke=\"#fff\" stroke-width=\"2\"/>",
                        b.x - 5.5, b.y - 5.5))
        }
        parts.append(
            String(
                format:
                    "<g class=\"north\" font-family=\"sans-serif\" font-size=\"11\" text-anchor=\"middle\"><text x=\"%.0f\" y=\"13\">N</text>"
                    + "<path d=\"M%.0f 16 l-4 9 h8 z\" fill=\"#000\"/><line x1=\"%.0f\" y1=\"24\" x2=\"%.0f\" y2=\"34\" stroke=\"#000\" stroke-width=\"2\"/></g>",
                p.width - 12, p.width - 12, p.width - 12, p.width - 12))
        for (i, o) in shown.enumerated() {
            guard let c = o.coordinate else { continue }
            let q = p.point(c)
            let fill = o.dropped ? "#999" : (o.origin == "rider" ? "#1f5fbf" : "#111")
            let dot =
                String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"%@\"/>", q.x, q.y, fill)
                + String(
                    format:
                        "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#fff\" font-family=\"sans-serif\">%d</text>",
                    q.x, q.y + 4, i + 1)
            // The link's target is a 22 px radius (a 44 px fingertip) around the 9 px dot.
            parts.append(
                links
                    ? "<a href=\"#cand-\(i + 1)\" id=\"dot-\(i + 1)\">"
                        + String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"22\" fill=\"transparent\"/>", q.x, q.y) + dot + "</a>" : dot)
        }
        if let spot {
            parts.append(
                String(
                    format: "<circle id=\"spot\" cx=\"%.1f\" cy=\"%.1f\" r=\"12\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"4\"/>",
                    spot.x, spot.y))
        }
        let bar = p.scaleBarMetres
        let barLength = bar * p.scale
        let label = bar >= 1000 ? String(format: "%.0f km", bar / 1000) : String(format: "%.0f m", bar)
        let box = scaleBarBox(barLength: barLength)
        parts.append(
            String(
                format: "<g class=\"scale\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>",
                box.x, box.y + box.height - 4, box.x + barLength, box.y + box.height - 4)
                + String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" font-family=\"sans-serif\">", box.x, box.y + 10)
                + "\(label)</text></g>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// Where the scale bar and its label go: the first corner of bottom left, bottom right and top left
    /// whose box (the label above the bar, 8 px from the edges) no marker covers — the start dot, the end
    /// square, a numbered dot — so "50 m" stays readable (the end square once sat on it).
    func scaleBarBox(barLength: Double) -> (x: Double, y: Double, width: Double, height: Double) {
        let p = projection
        let width = max(barLength, 34), height = 16.0
        let corners = [(8.0, p.height - 8 - height), (p.width - 8 - width, p.height - 8 - height), (8.0, 8.0)]
        // Each marker as a centre and the radius it covers, with 2 px to spare.
        var markers = [draft.path.first, draft.path.last].compactMap { $0 }.map { (p.point($0), 10.0) }
        markers += shown.compactMap(\.coordinate).map { (p.point($0), 11.0) }
        func clear(_ x: Double, _ y: Double) -> Bool {
            markers.allSatisfy { m, r in
                let nx = min(max(m.x, x), x + width), ny = min(max(m.y, y), y + height)
                return hypot(m.x - nx, m.y - ny) >= r
            }
        }
        let corner = corners.first { clear($0.0, $0.1) } ?? corners[0]
        return (corner.0, corner.1, width, height)
    }

    /// The part of `path` a road-quality stretch covers, from the point of the path nearest `start` to
    /// the point nearest `end` at or after it, so every point drawn lies on the drawn path. (Before, the
    /// stretch's own ends were drawn as they were measured, and an end whose nearest vertex came before
    /// its start's was joined by a straight line: one stretch left the path on the bundled ride.)
    static func pathBetween(_ path: [Coordinate], _ start: Coordinate?, _ end: Coordinate?) -> [Coordinate] {
        guard let start, let end, path.count > 1 else { return [] }
        let a = nearestOnPath(path, start, from: (0, 0))
        let b = nearestOnPath(path, end, from: (a.segment, a.t))
        guard (b.segment, b.t) > (a.segment, a.t) else { return [] }
        return [a.point] + (a.segment < b.segment ? Array(path[(a.segment + 1)...b.segment]) : []) + [b.point]
    }

    /// The point of `path` nearest `c` at or after `from` (segment index, fraction along it): its
    /// segment, fraction and coordinate, on a local plane in metres (a ride's few kilometres).
    static func nearestOnPath(_ path: [Coordinate], _ c: Coordinate, from: (segment: Int, t: Double)) -> (
        segment: Int, t: Double, point: Coordinate
    ) {
        let east = 111_320.0 * cos(c.latitude * .pi / 180), north = 111_132.0
        func plane(_ p: Coordinate) -> (x: Double, y: Double) {
            ((p.longitude - c.longitude) * east, (p.latitude - c.latitude) * north)
        }
        var best = (segment: from.segment, t: from.t, d: Double.infinity)
        for i in from.segment..<(path.count - 1) {
            let p = plane(path[i]), q = plane(path[i + 1])
            let dx = q.x - p.x, dy = q.y - p.y, length = dx * dx + dy * dy
            let lower = i == from.segment ? from.t : 0
            let t = length == 0 ? lower : min(1, max(lower, -(p.x * dx + p.y * dy) / length))
            let d = hypot(p.x + t * dx, p.y + t * dy)
            if d < best.d { best = (i, t, d) }
        }
        let p = path[best.segment], q = path[best.segment + 1]
        let point = Coordinate(
            latitude: p.latitude + best.t * (q.latitude - p.latitude), longitude: p.longitude + best.t * (q.longitude - p.longitude))
        return (best.segment, best.t, point)
    }
}
