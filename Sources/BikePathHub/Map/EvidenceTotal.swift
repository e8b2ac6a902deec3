extension MapEvidence {
    /// Several confirmations' evidence added up, as a store writes it: the passes summed in
    /// key order (two replicas adding to the same rows lock them in the same order), the
    /// reports and stretches as a `MapEvidence` with no passes.
    /// The passes come from one sort of every ride's (~800 each), not from merging each ride
    /// into a dictionary of the batch's ~50,000 and sorting that: the merge was a tenth of
    /// the hub's CPU while its map caught up after a load.
    public struct Total: Sendable {
        public var passes: [(key: PassKey, rides: Int)] = []
        public var rest = MapEvidence()

        public init(_ parts: [MapEvidence]) {
            var all: [(key: PassKey, rides: Int)] = []
            all.reserveCapacity(parts.reduce(0) { $0 + $1.passes.count })
            for var part in parts {
                for (key, rides) in part.passes { all.append((key, rides)) }
                part.passes = [:]
                rest.add(part)
            }
            all.sort { $0.key < $1.key }
            passes.reserveCapacity(all.count)
            for pass in all {
                if passes.last?.key == pass.key { passes[passes.count - 1].rides += pass.rides } else { passes.append(pass) }
            }
        }
    }
}
