import BikePathCore
import Foundation

/// A stretch of a route as the list under it says it ("community path 120 m, medium,
/// 2 riders"): consecutive pieces of one kind, name and status, joined.
struct RouteLeg: Encodable, Sendable, Equatable {
    enum Kind: String, Encodable, Sendable {
        /// The straight line between an asked end and its joining point: nobody rode it.
        case access
        /// Paths of the riders' network.
        case community
    }
    var kind: Kind
    /// The street's name; nil where the network knows none (every community path today).
    var name: String?
    var lengthMeters: Double
    /// `PathStatus`'s raw value, `unknown` where no trip rated it; nil on access legs.
    var status: String?
    /// The fewest distinct riders on any of its links (0 on access legs).
    var riders: Int

    enum CodingKeys: String, CodingKey { case kind, name, lengthM = "length_m", status, riders }

    /// Every key written, null where absent: a client reads one shape for every leg.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(name, forKey: .name)
        try c.encode((lengthMeters * 10).rounded() / 10, forKey: .lengthM)
        try c.encode(status, forKey: .status)
        try c.encode(riders, forKey: .riders)
    }

    static func access(_ meters: Double) -> RouteLeg {
        RouteLeg(kind: .access, name: nil, lengthMeters: meters, status: nil, riders: 0)
    }
}

extension Route {
    /// The access leg to the start, the network's part grouped by (name, status), the
    /// access leg from the end: both access legs always, 0 m when an end lies on a path.
    var legs: [RouteLeg] {
        var network: [RouteLeg] = []
        for piece in pieces {
            let leg = RouteLeg(
                kind: .community, name: nil, lengthMeters: piece.lengthMeters, status: piece.link.status?.rawValue ?? "unknown",
                riders: piece.link.riders)
            if let last = network.last, (last.kind, last.name, last.status) == (leg.kind, leg.name, leg.status) {
                network[network.count - 1].lengthMeters += leg.lengthMeters
                network[network.count - 1].riders = min(last.riders, leg.riders)
            } else {
                network.append(leg)
            }
        }
        return [.access(start.distanceMeters)] + network + [.access(end.distanceMeters)]
    }
}
