import BikePathCore
import Foundation

/// Simulated rides over real streets, for the map matcher's accuracy test and benchmark: a
/// seeded random walk from junction to junction (never against a street's one-way, never
/// straight back unless at a dead end), ridden at a constant speed and sampled at 1 Hz, each
/// sample moved by Gaussian GNSS noise. The truth is the stretches of street ridden.
/// Deterministic per seed.
public enum StreetWalk {
    /// A street as the walk sees it: its end nodes, its points from `from` to `to`, and the
    /// ways a bicycle may ride it.
    public struct Street: Sendable {
        public var from: Int64
        public var to: Int64
        public var points: [Coordinate]
        public var forward: Bool
        public var backward: Bool
        public init(from: Int64, to: Int64, points: [Coordinate], forward: Bool, backward: Bool) {
            (self.from, self.to, self.points, self.forward, self.backward) = (from, to, points, forward, backward)
        }
    }

    /// A stretch of one street ridden, in metres from its first point (`from > to`: backward).
    public struct Stretch: Sendable, Equatable {
        public var street: Int
        public var forward: Bool
        public var from: Double
        public var to: Double
        public init(street: Int, forward: Bool, from: Double, to: Double) {
            (self.street, self.forward, self.from, self.to) = (street, forward, from, to)
        }
        public var length: Double { abs(to - from) }
    }

    public struct Ride: Sendable {
        /// The noisy fixes, one a second: position and seconds since the start.
        public var fixes: [(position: Coordinate, seconds: Double)]
        public var truth: [Stretch]
        /// The street each fix was taken on (an index into the streets given), fix by fix.
        public var fixStreets: [Int]
        /// Metres ridden between consecutive fixes.
        public var speed: Double
        public var lengthMeters: Double { truth.reduce(0) { $0 + $1.length } }
    }

    /// A walk of `minMeters...maxMeters` (the whole of its last street ridden) at `speed` m/s
    /// with noise `sigma` metres; nil when the seed's start leads nowhere that long (a
    /// corner of the extract whose one-ways all lead out of it, a street with two dead ends).
    public static func ride(
        over streets: [Street], seed: UInt64, minMeters: Double = 2_000, maxMeters: Double = 5_000, speed: Double = 5, sigma: Double
    ) -> Ride? {
        var rng = SplitMix64(state: seed)
        func uniform() -> Double { Double(rng.next() >> 11) / Double(1 << 53) }
        func below(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        func gaussian() -> Double { (-2 * log(max(uniform(), 1e-12))).squareRoot() * cos(2 * .pi * uniform()) }
        let lengths = streets.map { s in zip(s.points, s.points.dropFirst()).reduce(0.0) { $0 + Geodesic.distance($1.0, $1.1) } }
        var leaving: [Int64: [(street: Int, forward: Bool)]] = [:]
        for (i, s) in streets.enumerated() {
            if s.forward { leaving[s.from, default: []].append((i, true)) }
            if s.backward { leaving[s.to, default: []].append((i, false)) }
        }
        let target = minMeters + uniform() * (maxMeters - minMeters)
        let first = streets.indices.filter { streets[$0].forward || streets[$0].backward }
        guard !first.isEmpty else { return nil }
        var here = first[below(first.count)]
        var forward = streets[here].forward
        var truth: [Stretch] = []
        var ridden = 0.0, turnedBack = false
        while ridden < target {
            truth.append(Stretch(street: here, forward: forward, from: forward ? 0 : lengths[here], to: forward ? lengths[here] : 0))
            ridden += lengths[here]
            let node = forward ? streets[here].to : streets[here].from
            let options = leaving[node] ?? []
            let onward = options.filter { $0.street != here }
            // Back from a dead end once; a street with a dead end at both ends is no ride.
            if onward.isEmpty && turnedBack { return nil }
            turnedBack = onward.isEmpty
            guard let next = onward.isEmpty ? options.first : onward[below(onward.count)] else { return nil }
            (here, forward) = next
        }
        // The positions along the walk, one every `speed` metres, each moved by the noise.
        var fixes: [(position: Coordinate, seconds: Double)] = []
        var fixStreets: [Int] = []
        var along = 0.0, passed = 0.0, second = 0.0
        for stretch in truth {
            let s = streets[stretch.street]
            let points = stretch.forward ? s.points : s.points.reversed()
            for (a, b) in zip(points, points.dropFirst()) {
                let step = Geodesic.distance(a, b)
                while along <= passed + step {
                    let p = Geodesic.interpolate(a, b, step > 0 ? (along - passed) / step : 0)
                    let metresPerDegree = 111_320.0
                    let noisy = Coordinate(
                        latitude: p.latitude + gaussian() * sigma / metresPerDegree,
                        longitude: p.longitude + gaussian() * sigma / (metresPerDegree * cos(p.latitude * .pi / 180)))
                    fixes.append((noisy, second))
                    fixStreets.append(stretch.street)
                    along += speed
                    second += 1
                }
                passed += step
            }
        }
        return Ride(fixes: fixes, truth: truth, fixStreets: fixStreets, speed: speed)
    }

    /// The metres of `truth` that `matched` covers on the same street, ridden the same way.
    public static func sharedMeters(truth: [Stretch], matched: [Stretch]) -> Double {
        var result = 0.0
        for t in truth {
            let (lo, hi) = (min(t.from, t.to), max(t.from, t.to))
            // The matched intervals on this street this way, merged, clipped to the truth's.
            // (Typed closures: inferred, this chain took 4.3 s to type-check in every test build.)
            let intervals = matched.filter { $0.street == t.street && $0.forward == t.forward }
                .map { (s: Stretch) -> (Double, Double) in (max(lo, min(s.from, s.to)), min(hi, max(s.from, s.to))) }
                .filter { (i: (Double, Double)) -> Bool in i.0 < i.1 }
                .sorted { (x: (Double, Double), y: (Double, Double)) -> Bool in x < y }
            var end = lo
            for (a, b) in intervals where b > end {
                result += b - max(a, end)
                end = b
            }
        }
        return result
    }
}
