/// Exponential reconnect delay: doubles after each failure up to a ceiling, and starts
/// again from the floor once a connection has delivered data.
public struct Backoff: Sendable, Equatable {
    public let initial: Double
    public let maximum: Double
    public private(set) var current: Double

    public init(initial: Double = 0.25, maximum: Double = 8) {
        self.initial = max(0.001, initial)
        self.maximum = max(self.initial, maximum)
        self.current = self.initial
    }

    /// The delay to wait now; the next one will be twice as long (capped).
    public mutating func next() -> Double {
        let delay = current
        current = min(maximum, current * 2)
        return delay
    }

    public mutating func reset() { current = initial }
}
