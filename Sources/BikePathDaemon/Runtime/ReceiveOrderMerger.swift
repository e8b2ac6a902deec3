import BikePathCore

/// Puts records from several sources, each in its own time order, into one
/// receive-time order. The IMU arrives a buffer at a time (its samples are up to
/// one buffer period old when they come), NMEA a line at a time: records are held
/// for `holdbackSeconds` and released oldest first, so that the chain and a
/// recording see one ordered stream. A record that comes later than the holdback
/// is released at once (the chain counts an IMU sample that goes back in time).
public struct ReceiveOrderMerger: Sendable {
    public let holdbackSeconds: Double
    private var held: [(time: Int64, sequence: UInt64, record: SensorRecord)] = []
    private var sequence: UInt64 = 0

    /// Creates a merger holding each record `holdbackSeconds` before release.
    public init(holdbackSeconds: Double) {
        self.holdbackSeconds = holdbackSeconds
    }

    public var heldCount: Int { held.count }

    /// Holds `records` until they are due.
    public mutating func add(_ records: some Sequence<SensorRecord>) {
        for record in records {
            held.append((record.time.nanoseconds, sequence, record))
            sequence &+= 1
        }
    }

    /// Records older than `now - holdback`, in time order (ties: arrival order).
    public mutating func release(now: SampleTime) -> [SensorRecord] {
        release(upTo: now.nanoseconds &- Int64(holdbackSeconds * 1e9))
    }

    /// Everything held, in time order (shutdown, end of input).
    public mutating func releaseAll() -> [SensorRecord] { release(upTo: .max) }

    private mutating func release(upTo limit: Int64) -> [SensorRecord] {
        guard !held.isEmpty else { return [] }
        held.sort { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
        let cut = held.firstIndex { $0.time > limit } ?? held.count
        let out = held[..<cut].map(\.record)
        held.removeFirst(cut)
        return out
    }
}
