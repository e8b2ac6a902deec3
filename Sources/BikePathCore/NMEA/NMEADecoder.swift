// STUB: the NMEA helper replaces this file. The API below is the agreed seam.

/// Counts of input that was rejected, per kind. Nothing is dropped without a count.
public struct DecodeStatistics: Sendable, Equatable {
    public var sentences = 0
    public var fixes = 0
    public init() {}
}

/// Turns NMEA sentences into one GNSSFix per receiver epoch, the way gpsd assembles TPVs.
public struct NMEADecoder: Sendable {
    public private(set) var statistics = DecodeStatistics()
    public init() {}

    /// Feeds one sentence (without line ending); appends the fixes it completes.
    public mutating func decode(sentence: UnsafeRawBufferPointer, receivedAt: SampleTime, into fixes: inout [GNSSFix]) {
        statistics.sentences += 1
    }

    public mutating func decode(sentence: String, receivedAt: SampleTime) -> [GNSSFix] {
        var out: [GNSSFix] = []
        var s = sentence
        s.withUTF8 { decode(sentence: UnsafeRawBufferPointer($0), receivedAt: receivedAt, into: &out) }
        return out
    }

    /// Flushes the epoch in progress at the end of input.
    public mutating func finish() -> [GNSSFix] { [] }
}
