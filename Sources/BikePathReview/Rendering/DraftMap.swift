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
        parts.append(
            String(
                format: "<line x1=\"8\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#000\" stroke-width=\"2\"/>",
                p.height - 8, 8 + barLength, p.height - 8)
                + "<text x=\"8\" y=\"\(Int(p.height) - 12)\" font-size=\"10\" font-family=\"sans-serif\">\(label)</text>")
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    /// The path's vertices from the one nearest `start` to the one nearest `end`,
    /// with the two ends themselves: the stretch of the ride a road-quality segment covers.
    static func pathBetween(_ path: [Coordinate], _ start: Coordinate?, _ end: Coordinate?) -> [Coordinate] {
        guard let start, let end, !path.isEmpty else { return [] }
        func nearest(_ c: Coordinate) -> Int {
            path.indices.min { Geodesic.distance(path[$0], c) < Geodesic.distance(path[$1], c) } ?? 0
        }
        let a = nearest(start), b = nearest(end)
        let inner = a < b ? Array(path[(a + 1)..<b]) : []
        return [start] + inner + [end]
    }
}
