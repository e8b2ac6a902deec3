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
        /// OpenStreetMap's streets, named as OSM names them.
        case street
    }
    var kind: Kind
    /// The street's name from OpenStreetMap; nil on community paths and unnamed streets.
    var name: String?
    var lengthMeters: Double
    /// `PathStatus`'s raw value, `unknown` on community paths no trip rated, `unrated` on streets
    /// no two riders rated (their cost comes from OSM's tags, `RouteRule.streetFactor`); nil on access legs.
    var status: String?
    /// The fewest distinct riders on any of its links (0 on access legs and on streets fewer
    /// than `CorroborationRule.minRiders` rode).
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
    /// Legs shorter than this fold into their longer neighbour: a rider is not told of a
    /// 2 m stretch of another status where two streets meet, nor to ride 0 m to the path
    /// (a phone's position is off by more than that).
    static let foldMeters = 5.0

    /// The access leg to the start, the network's part grouped by (kind, name, status) with
    /// short stretches and the joins between paths and streets folded into their longer
    /// neighbour, the access leg from the end; access legs shorter than `foldMeters` are
    /// not listed.
    var legs: [RouteLeg] {
        var network: [(leg: RouteLeg, folds: Bool)] = []
        for piece in pieces {
            let leg: RouteLeg
            switch piece.link.origin {
            case .street(let edge, _):
                leg = RouteLeg(
                    kind: .street, name: edge.name, lengthMeters: piece.lengthMeters, status: piece.link.status?.rawValue ?? "unrated",
                    riders: piece.link.riders)
            case .community, .join:
                leg = RouteLeg(
                    kind: .community, name: nil, lengthMeters: piece.lengthMeters, status: piece.link.status?.rawValue ?? "unknown",
                    riders: piece.link.riders)
            }
            network.append((leg, piece.link.origin == .join))
        }
        network = Self.joined(network)
        // The shortest stretch to fold first, into its longer neighbour; then join again.
        while network.count > 1,
            let i = network.indices.filter({ network[$0].folds || network[$0].leg.lengthMeters < Self.foldMeters })
                .min(by: { network[$0].leg.lengthMeters < network[$1].leg.lengthMeters })
        {
            let neighbours = [i - 1, i + 1].filter(network.indices.contains)
            let into = neighbours.max { network[$0].leg.lengthMeters < network[$1].leg.lengthMeters }!
            network[into].leg.lengthMeters += network[i].leg.lengthMeters
            network.remove(at: i)
            network = Self.joined(network)
        }
        let access = [start.distanceMeters, end.distanceMeters].map { $0 >= Self.foldMeters ? [RouteLeg.access($0)] : [] }
        return access[0] + network.map(\.leg) + access[1]
    }

    /// Consecutive legs of one kind, name and status as one: their metres summed, the fewest riders.
    private static func joined(_ legs: [(leg: RouteLeg, folds: Bool)]) -> [(leg: RouteLeg, folds: Bool)] {
        var out: [(leg: RouteLeg, folds: Bool)] = []
        for (leg, folds) in legs {
            if let last = out.last, !folds, !last.folds, (last.leg.kind, last.leg.name, last.leg.status) == (leg.kind, leg.name, leg.status)
            {
                out[out.count - 1].leg.lengthMeters += leg.lengthMeters
                out[out.count - 1].leg.riders = min(last.leg.riders, leg.riders)
            } else {
                out.append((leg, folds))
            }
        }
        return out
    }
}
