import BikePathCore

/// The clock a device stamps its samples with (sysfs `current_timestamp_clock`).
public enum IIOTimestampClock: String, Sendable, Codable {
    case monotonic, realtime, other
    /// Reads the sysfs value (surrounding whitespace ignored); anything but `monotonic` or
    /// `realtime` is `.other`.
    public init(sysfs value: String?) {
        switch value?.trimmingCharactersInSet() {
        case "monotonic": self = .monotonic
        case "realtime": self = .realtime
        default: self = .other
        }
    }
}

/// Puts IIO sample timestamps (ns on the device's clock) onto the pipeline's monotonic
/// clock. A monotonic stamp is used as is; a realtime stamp is shifted by the realtime −
/// monotonic difference measured when the buffer arrived. A stamp that lands implausibly
/// (after the buffer arrived, or more than `maximumLatency` before it: another clock, a
/// wrong clock, a test device) falls back to anchoring: the device's spacing is kept, and
/// the newest sample of the buffer is put at its arrival time. Re-anchors are counted.
public struct IIOTimestampMapper: Sendable {
    public var clock: IIOTimestampClock
    public var maximumLatency: Int64 = 5_000_000_000
    /// Allowance for a stamp slightly after the arrival reading (clock read order).
    public var futureTolerance: Int64 = 50_000_000
    public private(set) var anchorOffset: Int64?
    public private(set) var reanchors = 0

    /// Creates a mapper for stamps on `clock`, with no anchor yet.
    public init(clock: IIOTimestampClock) { self.clock = clock }

    /// Prepares the mapping for one buffer: `newest` is the buffer's last stamp, `edge` the
    /// clocks read when the refill returned. Returns the offset to add to each stamp.
    public mutating func offset(newest: Int64, edge: (monotonic: Int64, realtime: Int64)) -> Int64 {
        let direct: Int64? =
            switch clock {
            case .monotonic: 0
            case .realtime: edge.monotonic - edge.realtime
            case .other: nil
            }
        if let direct, plausible(newest + direct, edge.monotonic) {
            anchorOffset = nil
            return direct
        }
        if let anchorOffset, plausible(newest + anchorOffset, edge.monotonic) { return anchorOffset }
        if anchorOffset != nil { reanchors += 1 }
        anchorOffset = edge.monotonic - newest
        return anchorOffset!
    }

    private func plausible(_ mapped: Int64, _ edge: Int64) -> Bool {
        mapped <= edge + futureTolerance && mapped >= edge - maximumLatency
    }
}

extension String {
    func trimmingCharactersInSet() -> String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\n" || c == "\0" || c == "\t" { s.removeFirst() }
        while let c = s.last, c == " " || c == "\n" || c == "\0" || c == "\t" { s.removeLast() }
        return String(s)
    }
}
