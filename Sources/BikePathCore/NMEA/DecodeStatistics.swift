/// Counts of what the decoder saw, and of every input it rejected, one counter per
/// reject kind. Nothing is dropped without being counted here.
public struct DecodeStatistics: Sendable, Equatable {
    /// Lines handed to the decoder.
    public var lines = 0
    /// Sentences that passed framing and checksum and were one of the eight types decoded.
    public var sentences = 0
    /// Fixes emitted.
    public var fixes = 0

    // MARK: rejects (each line counts in at most one of these)

    /// Blank lines and lines that are not NMEA at all (no leading '$').
    public var notNMEA = 0
    /// Lines containing bytes outside printable ASCII (binary protocols mixed in).
    public var binary = 0
    /// Longer than any real NMEA sentence (two sentences run together, or noise).
    public var overlong = 0
    /// No '*hh' checksum (cut off, or a receiver that omits it).
    public var missingChecksum = 0
    /// Checksum present but wrong.
    public var badChecksum = 0
    /// A decoded sentence type with too few fields (truncated).
    public var truncated = 0
    /// A field that should hold a number, a time or a hemisphere holds something else.
    public var malformedField = 0
    /// Latitude beyond ±90°, longitude beyond ±180°, minutes ≥ 60, month 13, …
    public var outOfRange = 0
    /// A date before 2000: a receiver hit by a GPS week rollover, or one that
    /// reports its 1980 epoch before it has a fix.
    public var implausibleDate = 0

    // MARK: not rejects

    /// Lines with noise (binary, blanks) before a `$`: the noise is dropped and
    /// the sentence after it decoded, as gpsd's packet lexer does.
    public var noiseBeforeSentence = 0

    /// Valid NMEA of a type this decoder does not use (TXT, GST, proprietary, …).
    public var ignoredSentences = 0

    /// Creates all-zero counts.
    public init() {}

    /// Lines rejected for any reason.
    public var rejected: Int {
        notNMEA + binary + overlong + missingChecksum + badChecksum + truncated
            + malformedField + outOfRange + implausibleDate
    }

    /// Name and count of every reject kind, for summaries.
    public var rejectCounts: [(kind: String, count: Int)] {
        [
            ("notNMEA", notNMEA), ("binary", binary), ("overlong", overlong),
            ("missingChecksum", missingChecksum), ("badChecksum", badChecksum),
            ("truncated", truncated), ("malformedField", malformedField),
            ("outOfRange", outOfRange), ("implausibleDate", implausibleDate),
        ]
    }
}

/// Why a sentence was rejected (internal: the decoder turns it into a counter).
enum RejectReason: Error {
    case notNMEA, binary, overlong, missingChecksum, badChecksum, truncated
    case malformedField, outOfRange, implausibleDate
}

extension DecodeStatistics {
    mutating func count(_ reason: RejectReason) {
        switch reason {
        case .notNMEA: notNMEA += 1
        case .binary: binary += 1
        case .overlong: overlong += 1
        case .missingChecksum: missingChecksum += 1
        case .badChecksum: badChecksum += 1
        case .truncated: truncated += 1
        case .malformedField: malformedField += 1
        case .outOfRange: outOfRange += 1
        case .implausibleDate: implausibleDate += 1
        }
    }
}
