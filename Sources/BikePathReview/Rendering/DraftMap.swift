import BikePathCore
import BikePathStore
import Foundation

/// The draft's map as SVG: the path to scale, its road-quality stretches coloured
/// along it, and each shown obstacle as a numbered dot (the number the page lists it by).
public struct DraftMap: Sendable {
    public let projection: PathProjection
    let draft: DraftDocument
    let shown: [DraftDocument.Obstacle]

    /// `shown`: the obstacles numbered on the page, in that order.
    public init(_ draft: DraftDocument, shown: [DraftDocument.Obstacle]) {
        self.draft = draft
        self.shown = shown
        projection = PathProjection(fitting: draft.path + shown.compactMap(\.coordinate))
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

    public var svg: String {
        let p = projection
        func xy(_ c: Coordinate) -> String {
            let q = p.point(c)
            return String(format: "%.1f,%.1f", q.x, q.y)
        }
        var parts = ["""
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \(Int(p.width)) \(Int(p.height))" width="\(Int(p.width))" \
            height="\(Int(p.height))"><rect width="100%" height="100%" fill="#f6f6f0"/>
            """]
        parts.append("<polyline fill=\"none\" stroke=\"#555\" stroke-width=\"3\" points=\"\(draft.path.map(xy).joined(separator: " "))\"/>")
        for stretch in draft.roadQuality {
            let points = Self.pathBetween(draft.path, stretch.start, stretch.end)
            guard points.count > 1 else { continue }
            parts.append("<polyline fill=\"none\" stroke=\"\(Self.colour(stretch.status))\" stroke-width=\"6\" stroke-linecap=\"round\" "
                         + "points=\"\(points.map(xy).joined(separator: " "))\"/>")
        }
        for (i, o) in shown.enumerated() {
            guard let c = o.coordinate else { continue }
            let q = p.point(c)
            let fill = o.dropped ? "#999" : (o.origin == "rider" ? "#1f5fbf" : "#111")
            parts.append(String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"%@\"/>", q.x, q.y, fill)
                         + String(format: "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" fill=\"#fff\" font-family=\"sans-serif\">%d</text>",
                                  q.x, q.y + 4, i + 1))
        }
        let bar = p.scaleBarMetres
        let barLength = bar * p.scale
        let label = bar >= 1000 ? String(format: "%.0f km", bar / 1000) : String(format: "%.0f m", bar)
        parts.append(String(format: "<line x1=\"8\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#000\" stroke-width=\"2\"/>",
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
