import BikePathCore
import Foundation

/// Where a route's end joins the network: the point of a public link nearest the asked
/// point (its projection onto the link, clamped to the link's ends). The search enters the
/// link there, as at a node splitting it in two, each part costing its share of the link.
public struct JoiningPoint: Sendable, Equatable {
    public var link: NetworkLink
    /// Where along the link: 0 at `link.from`, 1 at `link.to`.
    public var fraction: Double
    public var position: Coordinate
    /// From the asked point, straight: the access leg.
    public var distanceMeters: Double

    public init(on link: NetworkLink, nearest point: Coordinate) {
        self.link = link
        fraction = Geodesic.nearestShare(of: point, onSegment: link.from, link.to)
        position = Geodesic.interpolate(link.from, link.to, fraction)
        distanceMeters = Geodesic.distance(point, position)
    }

    /// The share of the link between this point and `node`, one of the link's ends.
    public func share(toward node: Int64) -> Double { node == link.key.from ? fraction : 1 - fraction }

    /// Whether a bicycle may ride along the link from this point to `other` on it.
    public func allows(to other: JoiningPoint) -> Bool {
        other.fraction == fraction || link.allows(leaving: other.fraction > fraction ? link.key.from : link.key.to)
    }
}

/// Which points an end may join at. The nearest link alone may lie on a fragment that
/// joins nothing (a trip's privacy-trimmed end, another rider's side street), so an end
/// may join the projection onto any of a few links within reach, spread apart, and the
/// search picks the cheapest, reaching each at `RouteRule.access`.
public enum JoiningPoints {
    /// At most this many points per end, at least `spacingMeters` apart: the links next to
    /// the nearest one on the same street (12 m each) project onto their shared node, a
    /// few metres away, and would fill the 8 places with one street.
    public static let limit = 8
    public static let spacingMeters = 40.0
    /// The links read around an end to find them.
    public static let nearestLinks = 40

    static func among(_ links: [NetworkLink], near point: Coordinate, reachMeters: Double) -> [JoiningPoint] {
        // A window of degrees, a tenth wider than the reach, before any projection: a search
        // box holds up to ~100,000 links, and measuring each was a tenth of a SQLite route
        // search. A link is 10–15 m, so one crossing the window has an end in it.
        let dLat = 1.1 * reachMeters / 111_320, dLon = dLat / max(cos((abs(point.latitude) + dLat) * .pi / 180), 0.01)
        func near(_ c: Coordinate) -> Bool { abs(c.latitude - point.latitude) <= dLat && abs(c.longitude - point.longitude) <= dLon }
        var points = links.filter { near($0.from) || near($0.to) }.map { JoiningPoint(on: $0, nearest: point) }
            .filter { $0.distanceMeters <= reachMeters }
            .sorted { ($0.distanceMeters, $0.link.id) < ($1.distanceMeters, $1.link.id) }
        // Streets are one connected network, not a fragment: a point farther than the nearest
        // street point and `StreetLinks.joinMeters` more would only cut through a block or
        // along a one-way, its straight access leg (2 per metre) cheaper than the streets
        // round it (1.2–1.8 per metre, a block's 3 sides).
        if let street = points.first(where: { $0.link.street != nil }) {
            points = points.filter { $0.distanceMeters <= street.distanceMeters + StreetLinks.joinMeters }
        }
        var kept: [JoiningPoint] = []
        for p in points where kept.count < limit && !kept.contains(where: { Geodesic.distance($0.position, p.position) < spacingMeters }) {
            kept.append(p)
        }
        return kept
    }

    /// The nearest point of the network (for the distance a refusal states), however far.
    static func nearest(_ links: [NetworkLink], to point: Coordinate) -> JoiningPoint? {
        links.map { JoiningPoint(on: $0, nearest: point) }.min { ($0.distanceMeters, $0.link.id) < ($1.distanceMeters, $1.link.id) }
    }
}
