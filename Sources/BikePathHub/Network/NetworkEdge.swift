import BikePathCore
import Foundation

/// A stretch of the public network as the map shows it: public links (`NetworkLink`)
/// joined end to end through nodes where exactly two public links meet and the status
/// does not change, so it is split at crossings and where the status changes.
public struct NetworkEdge: Sendable, Equatable {
    public var path: [Coordinate]
    public var lengthMeters: Double
    public var status: PathStatus?
    /// The fewest riders behind any of its links: every part rests on at least this many.
    public var riders: Int
    public var obstacles: Int
    public var lastDay: Int?

    /// The edges of the public links among `links` (ties and directions by link id, so the
    /// same links give the same edges).
    public static func edges(of links: [NetworkLink], minRiders: Int) -> [NetworkEdge] {
        let open = links.filter { $0.isPublic(minRiders: minRiders) }.sorted { $0.id < $1.id }
        var at: [Int64: [Int]] = [:]
        for (i, l) in open.enumerated() {
            at[l.key.from, default: []].append(i)
            at[l.key.to, default: []].append(i)
        }
        var used = Array(repeating: false, count: open.count)
        /// From `node`, away from link `i`: the next link of the chain, if the chain goes on.
        func next(after i: Int, at node: Int64) -> Int? {
            guard let here = at[node], here.count == 2 else { return nil }
            let j = here[0] == i ? here[1] : here[0]
            return !used[j] && open[j].status == open[i].status ? j : nil
        }
        var edges: [NetworkEdge] = []
        for start in open.indices where !used[start] {
            used[start] = true
            var chain = [start]
            var nodes = [open[start].key.from, open[start].key.to]
            // Forwards from `to`, then backwards from `from`.
            while let j = next(after: chain.last!, at: nodes.last!) {
                used[j] = true
                chain.append(j)
                nodes.append(open[j].key.from == nodes.last! ? open[j].key.to : open[j].key.from)
            }
            while let j = next(after: chain.first!, at: nodes.first!) {
                used[j] = true
                chain.insert(j, at: 0)
                nodes.insert(open[j].key.from == nodes.first! ? open[j].key.to : open[j].key.from, at: 0)
            }
            let members = chain.map { open[$0] }
            var position: [Int64: Coordinate] = [:]
            for l in members { position[l.key.from] = l.from; position[l.key.to] = l.to }
            edges.append(
                NetworkEdge(
                    path: nodes.map { position[$0]! }, lengthMeters: members.map(\.lengthMeters).reduce(0, +),
                    status: open[start].status, riders: members.map(\.riders).min()!,
                    obstacles: members.map(\.obstacles.count).reduce(0, +), lastDay: members.compactMap(\.lastDay).max()))
        }
        return edges
    }
}

struct NetworkProperties: Encodable, Sendable {
    /// A `PathStatus`, or `unknown` where no trip rated the edge.
    var status: String
    var riders: Int
    var lengthM: Double
    var obstacles: Int
    var lastSeen: String?
    enum CodingKeys: String, CodingKey { case status, riders, lengthM = "length_m", obstacles, lastSeen = "last_seen" }
}

extension NetworkEdge {
    /// What `/v1/map/network` answers for `edges`.
    public static func geoJSONData(_ edges: [NetworkEdge]) throws -> Data { try geoJSON(edges).encoded() }

    static func geoJSON(_ edges: [NetworkEdge]) -> FeatureCollection<NetworkProperties> {
        FeatureCollection(
            features: edges.map { e in
                Feature(
                    geometry: .line(e.path),
                    properties: NetworkProperties(
                        status: e.status?.rawValue ?? "unknown", riders: e.riders,
                        lengthM: (e.lengthMeters * 10).rounded() / 10, obstacles: e.obstacles,
                        lastSeen: SharedMap.day(e.lastDay)))
            })
    }
}
