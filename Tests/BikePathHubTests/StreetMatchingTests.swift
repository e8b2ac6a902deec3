import BikePathCore
import BikePathFixtures
import BikePathTestSupport
import Foundation
import Testing

@testable import BikePathHub

/// The matcher on the real central London streets (../shared/datasets/osm/central-london.osm.pbf,
/// © OpenStreetMap contributors, ODbL), imported through `bikepath-hub import-osm` and read
/// back with `streets(in:)`: simulated rides (`StreetWalk`: seeded random walks of 2–5 km
/// at 5 m/s, one fix a second, with Gaussian GNSS noise) matched to the streets. The
/// share of each ride on its true street is asserted here and measured by bench/matching.sh.
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct StreetMatchingTests {
    static func centralStreets() async throws -> [StreetEdge] {
        let dir = try TempDir()
        defer { dir.cleanup() }
        return try await StreetImportTests.imported(.sqlite, dir).streets.edges
    }

    static func walkStreets(_ edges: [StreetEdge]) -> [StreetWalk.Street] {
        edges.map {
            StreetWalk.Street(
                from: $0.key.from, to: $0.key.to, points: $0.points, forward: $0.direction != .backward, backward: $0.direction != .forward)
        }
    }

    /// `count` rides with noise `sigma`, from consecutive seeds (a seed whose walk leads nowhere is skipped).
    static func rides(_ streets: [StreetWalk.Street], sigma: Double, count: Int, firstSeed: UInt64 = 1) -> [StreetWalk.Ride] {
        var rides: [StreetWalk.Ride] = []
        var seed = firstSeed
        while rides.count < count {
            if let ride = StreetWalk.ride(over: streets, seed: seed, sigma: sigma) { rides.append(ride) }
            seed += 1
        }
        return rides
    }

    static func fixes(_ ride: StreetWalk.Ride) -> [MatchFix] {
        ride.fixes.map { MatchFix(position: $0.position, time: SampleTime(seconds: $0.seconds)) }
    }

    /// The match's pieces as stretches of the edges given (by index).
    static func stretches(_ match: StreetMatch, _ edges: [StreetEdge]) -> [StreetWalk.Stretch] {
        let index = Dictionary(uniqueKeysWithValues: edges.enumerated().map { ($1.key, $0) })
        return match.runs.flatMap(\.pieces).map {
            StreetWalk.Stretch(street: index[$0.key]!, forward: $0.way == .forward, from: $0.fromMeters, to: $0.toMeters)
        }
    }

    /// The share of each of `count` rides' length the matcher lays on its true street, that way.
    static func shares(_ edges: [StreetEdge], sigma: Double, count: Int, firstSeed: UInt64) throws -> [Double] {
        let matcher = StreetMatcher(graph: StreetGraph(edges: edges), parameters: MatchParameters(sigma: sigma))
        return try rides(walkStreets(edges), sigma: sigma, count: count, firstSeed: firstSeed).map { ride in
            let match = try matcher.match(fixes(ride))
            return StreetWalk.sharedMeters(truth: ride.truth, matched: stretches(match, edges)) / ride.lengthMeters
        }
    }

    /// ≥ 97 % of every ride's length on its true street at 5 m of GNSS noise; at 10 m, ≥ 97 %
    /// of the length on average and ≥ 93 % of every ride (the goal, 97 % of every ride, is
    /// not reached there: see docs/hub.md). On 20 rides from seed 1 and 20 from seed 1,001;
    /// the second set was not looked at while the parameters were chosen.
    @Test(arguments: [(5.0, 0.97, 0.97), (10.0, 0.93, 0.97)])
    func simulatedRidesLieOnTheirTrueStreets(_ sigma: Double, everyRide: Double, mean: Double) async throws {
        let edges = try await Self.centralStreets()
        for firstSeed: UInt64 in [1, 1_001] {
            let shares = try Self.shares(edges, sigma: sigma, count: 20, firstSeed: firstSeed)
            let average = shares.reduce(0, +) / Double(shares.count)
            print("σ \(sigma) m, seeds from \(firstSeed): on the true street min \(shares.min()!), mean \(average)")
            #expect(shares.allSatisfy { $0 >= everyRide } && average >= mean, "σ \(sigma) m, seeds from \(firstSeed): \(shares)")
        }
    }

    /// β is N&K's estimate on the simulated rides: the median over consecutive kept fixes of
    /// |route − straight| (the route the metres ridden between the fixes' true positions, the
    /// straight distance between the noisy fixes), over ln 2.
    @Test(arguments: [5.0, 10.0]) func betaIsNewsonAndKrummsEstimateOnTheSimulatedRides(_ sigma: Double) async throws {
        let edges = try await Self.centralStreets()
        let matcher = StreetMatcher(graph: StreetGraph(edges: edges), parameters: MatchParameters(sigma: sigma))
        var differences: [Double] = []
        for ride in Self.rides(Self.walkStreets(edges), sigma: sigma, count: 20, firstSeed: 1) {
            let kept = matcher.thinned(Self.fixes(ride))
            for (i, j) in zip(kept, kept.dropFirst()) {
                let straight = Geodesic.distance(ride.fixes[i].position, ride.fixes[j].position)
                differences.append(abs(Double(j - i) * ride.speed - straight))
            }
        }
        let estimate = differences.sorted()[differences.count / 2] / log(2)
        print("σ \(sigma) m: N&K's β estimate \(estimate) m over \(differences.count) transitions; β \(matcher.parameters.beta) m")
        #expect(abs(matcher.parameters.beta - estimate) < 0.15 * estimate, "β \(matcher.parameters.beta), estimate \(estimate)")
    }

    /// Each fix snapped to its nearest street alone lands off the true street far more often
    /// than the matcher: where streets run side by side (a road and its cycle track, a
    /// junction's arms) the nearest is often the wrong one. Both measured per fix.
    @Test func nearestStreetSnappingMissesWhereTheMatcherDoesNot() async throws {
        let edges = try await Self.centralStreets()
        let streets = Self.walkStreets(edges)
        let graph = StreetGraph(edges: edges)
        let sigma = 10.0
        let parameters = MatchParameters(sigma: sigma)
        let matcher = StreetMatcher(graph: graph, parameters: parameters)
        var snapped = 0.0, matched = 0.0
        let rides = Self.rides(streets, sigma: sigma, count: 10)
        for ride in rides {
            let nearest = ride.fixes.map {
                graph.candidates(near: $0.position, parameters).min { ($0.distance, $0.edge) < ($1.distance, $1.edge) }
            }
            let index = Dictionary(uniqueKeysWithValues: edges.enumerated().map { ($1.key, $0) })
            let right = zip(nearest, ride.fixStreets).filter { n, truth in n.map { index[graph.edges[$0.edge].key] == truth } ?? false }
            snapped += Double(right.count) / Double(ride.fixes.count)
            let match = try matcher.match(Self.fixes(ride))
            matched += StreetWalk.sharedMeters(truth: ride.truth, matched: Self.stretches(match, edges)) / ride.lengthMeters
        }
        (snapped, matched) = (snapped / Double(rides.count), matched / Double(rides.count))
        print("σ \(sigma) m: nearest street right for \(snapped) of the fixes; the matcher \(matched) of the length")
        #expect(snapped < 0.75 && matched > snapped + 0.2, "snapping \(snapped), matcher \(matched)")
    }
}
