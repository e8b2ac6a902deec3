import BikePathCore

/// A ride matched to the streets: where it was on streets, the edges it rode in riding order;
/// where it was not, the fixes left for the community network.
public struct StreetMatch: Sendable, Equatable {
    /// Which way along an edge's node order (from `key.from` to `key.to`) the rider went.
    public enum Way: String, Sendable, Equatable {
        case forward, backward
    }

    /// One edge as ridden: from where the ride came onto it to where it left, in metres
    /// along the edge from its first node (`fromMeters > toMeters` when ridden backward).
    public struct Piece: Sendable, Equatable {
        public var key: StreetEdge.Key
        public var way: Way
        public var fromMeters: Double
        public var toMeters: Double
        /// The share of the edge's length ridden, 0...1.
        public var fraction: Double
        public var lengthMeters: Double { abs(toMeters - fromMeters) }
    }

    /// A stretch of consecutive fixes on the streets, joined by routes a bicycle may ride.
    public struct Run: Sendable, Equatable {
        /// The first and last fix (indices into the fixes given) the run covers.
        public var fixes: ClosedRange<Int>
        public var pieces: [Piece]
    }

    public var runs: [Run]
    /// The fixes in no run, as ranges of indices: off every street, or a single fix between
    /// breaks (nothing ridden to place). These stay with the community network.
    public var unmatched: [ClosedRange<Int>]

    /// The metres of street the runs cover.
    public var matchedMeters: Double { runs.reduce(0) { $0 + $1.pieces.reduce(0) { $0 + $1.lengthMeters } } }
}

/// One GNSS fix to match: where, and when on the recording's clock.
public struct MatchFix: Sendable, Equatable {
    public var position: Coordinate
    public var time: SampleTime
    public init(position: Coordinate, time: SampleTime) { (self.position, self.time) = (position, time) }
}

/// Fixes the matcher refuses, each with the index of the first offending fix: nothing is
/// matched from a ride that has one.
public enum MatchInputError: Error, Equatable, CustomStringConvertible {
    /// A latitude outside −90...90, a longitude outside −180...180, or either not a number.
    case invalidPosition(index: Int)
    /// A fix earlier than the one before it.
    case timeGoesBack(index: Int)

    public var description: String {
        switch self {
        case .invalidPosition(let i): "fix \(i) has no valid position (latitude −90...90 and longitude −180...180, both numbers)"
        case .timeGoesBack(let i): "fix \(i) is earlier than fix \(i - 1): fixes must be in time order"
        }
    }
}
