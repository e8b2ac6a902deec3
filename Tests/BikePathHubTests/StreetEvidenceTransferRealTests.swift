import BikePathCore
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The re-import transfer's thresholds (5 m, 80 % along) on real streets: central London's
/// (`RealExtract`, © OpenStreetMap contributors, ODbL), every edge carrying its own rider,
/// re-imported with a quarter of its ways edited as OSM editors edit them. Dense junctions,
/// cycle tracks a few metres beside their roads and curved streets are where evidence could
/// leak to a neighbour; the synthetic streets of `StreetEvidenceTransferTests` have none.
@Suite(.ownThreads, .enabled(if: RealExtract.available))
struct StreetEvidenceTransferRealTests {
    /// A way id no extract has (OSM's are below 2^40): a part given a new way by a split.
    static let newWay: Int64 = 1 << 50
    /// A node id no extract has: where a split or a new junction cuts an edge.
    static let newNode: Int64 = 1 << 51

    /// The edge cut at its middle vertex into `first` and `second`, the cut a new node.
    static func cut(_ e: StreetEdge, node: Int64, firstWay: Int64, secondWay: Int64) -> [StreetEdge] {
        let m = e.points.count / 2
        func part(_ way: Int64, _ from: Int64, _ to: Int64, _ points: [Coordinate]) -> StreetEdge {
            var p = e
            (p.key, p.points) = (StreetEdge.Key(way: way, from: from, to: to), points)
            p.lengthMeters = zip(points, points.dropFirst()).reduce(0) { $0 + Geodesic.distance($1.0, $1.1) }
            return p
        }
        return [part(firstWay, e.key.from, node, Array(e.points[...m])), part(secondWay, node, e.key.to, Array(e.points[m...]))]
    }

    /// Ways ≡ 0 (mod 4) split: each edge of three points or more cut at its middle vertex,
    /// its second part a new way; a two-point edge wholly given a new way (a redrawn way).
    /// Ways ≡ 1 (mod 4) re-noded: a new street joins in the middle, the same way both sides.
    /// What each new edge is part of is the truth the plan must find.
    static func edited(_ edges: [StreetEdge]) -> (edges: [StreetEdge], source: [StreetEdge.Key: StreetEdge.Key]) {
        var out: [StreetEdge] = [], source: [StreetEdge.Key: StreetEdge.Key] = [:]
        for (i, e) in edges.enumerated() {
            let node = newNode + Int64(i)
            var parts = [e]
            switch e.key.way % 4 {
            case 0 where e.points.count >= 3: parts = cut(e, node: node, firstWay: e.key.way, secondWay: e.key.way + newWay)
            case 0: parts[0].key.way += newWay
            case 1 where e.points.count >= 3: parts = cut(e, node: node, firstWay: e.key.way, secondWay: e.key.way)
            default: break
            }
            for p in parts where p.key != e.key { source[p.key] = e.key }
            out += parts
        }
        return (out, source)
    }

    @Test func eachEditedStreetTakesItsOwnEvidenceAndNoNeighboursOnLondonsStreets() async throws {
        let edges = try await StreetMatchingTests.centralStreets()
        let rider = Dictionary(uniqueKeysWithValues: edges.enumerated().map { ($1.key, "rider-\($0)") })
        var evidence: [StreetEdge.Key: StreetEvidenceTransfer.Evidence] = [:]
        for e in edges {
            var one = StreetEvidence()
            one.rides.add(device: rider[e.key]!, day: 20_000, status: .optimal)
            evidence[e.key] = [.forward: one]
        }
        let (after, source) = Self.edited(edges)
        let plan = StreetEvidenceTransfer.plan(old: edges, oldKeys: Set(edges.map(\.key)), evidence: evidence, new: after)

        let dropped = Set(edges.map(\.key)).subtracting(after.map(\.key))
        #expect(dropped.count > 300, "a quarter of London's ways edited: \(dropped.count) edges dropped")
        #expect(Set(plan.moved) == dropped, "every edited edge gives: \(dropped.subtracting(plan.moved).count) kept theirs")
        let got = Dictionary(grouping: plan.increments, by: \.key)
        let (missing, extra) = (Set(source.keys).subtracting(got.keys), Set(got.keys).subtracting(source.keys))
        #expect(missing.isEmpty && extra.isEmpty, "\(missing.count) parts took nothing, \(extra.count) unedited edges took some")
        var leaks: [String] = []
        for (key, increments) in got {
            let devices = increments.reduce(into: Set<String>()) { $0.formUnion($1.evidence.rides.devices) }
            let own = source[key].map { rider[$0]! }
            if devices != Set([own].compactMap { $0 }) { leaks.append("\(key): \(devices.sorted()), its own \(own ?? "none")") }
        }
        print(
            "London re-imported with \(dropped.count) of \(edges.count) edges edited into \(source.count): \(leaks.count) took a neighbour's evidence"
        )
        #expect(leaks.isEmpty, "\(leaks.count) edges took a neighbour's evidence: \(leaks.sorted().prefix(10))")
    }
}
