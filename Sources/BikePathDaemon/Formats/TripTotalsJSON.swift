import BikePathCore

/// A trip's totals in docs/json.md's keys, written once for the `trip_ended` line
/// of `replay --json` and the `trip` of `drafts show --json`.
public struct TripTotalsJSON: Encodable, Sendable {
    public var distance_m: Double
    public var elapsed_s: Double
    public var moving_s: Double
    public var avg_moving_speed_mps: Double
    public var max_speed_mps: Double
    public var elevation_gain_m: Double
    public var co2_avoided_g: Double

    public init(_ s: TripStatistics) {
        distance_m = s.distanceMeters
        elapsed_s = s.elapsedSeconds
        moving_s = s.movingSeconds
        avg_moving_speed_mps = s.averageMovingSpeed
        max_speed_mps = s.maxSpeed
        elevation_gain_m = s.elevationGainMeters
        co2_avoided_g = s.co2AvoidedGrams
    }
}

/// Two objects' keys in one JSON object (the head's own keys, then the totals').
public struct JSONMerged<Head: Encodable, Tail: Encodable>: Encodable {
    public var head: Head
    public var tail: Tail

    public init(head: Head, tail: Tail) {
        self.head = head
        self.tail = tail
    }

    public func encode(to encoder: any Encoder) throws {
        try head.encode(to: encoder)
        try tail.encode(to: encoder)
    }
}
