/// Turns NMEA sentences into one GNSSFix per receiver epoch, the way gpsd assembles
/// TPV reports (see EpochAssembler for the rules and docs/gpsd-differences.md for
/// where the two still differ).
///
/// Any input is safe: a line that is not a valid sentence of a decoded type is
/// counted in `statistics` under its reject kind and has no effect on the fixes.
public struct NMEADecoder: Sendable {
    public private(set) var statistics = DecodeStatistics()
    var assembler = EpochAssembler()

    /// Creates a decoder with no epoch in progress.
    public init() {}

    /// Feeds one line (one sentence, with or without its line ending); appends the
    /// fixes of epochs it completes.
    public mutating func decode(sentence: UnsafeRawBufferPointer, receivedAt: SampleTime, into fixes: inout [GNSSFix]) {
        statistics.lines += 1
        let before = fixes.count
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * NMEAFraming.maximumFields) { bounds in
            do throws(RejectReason) {
                var sentence = sentence
                if let start = NMEAFraming.sentenceStart(sentence), start > 0 {
                    statistics.noiseBeforeSentence += 1
                    sentence = UnsafeRawBufferPointer(rebasing: sentence[start...])
                }
                let count = try NMEAFraming.split(sentence, into: bounds)
                let fields = NMEAFields(bytes: sentence, bounds: bounds, count: count)
                let address = fields[0]
                guard let type = SentenceType(address: address) else {
                    statistics.ignoredSentences += 1
                    return
                }
                let talker = UInt16(sentence[address.start]) << 8 | UInt16(sentence[address.start + 1])
                try dispatch(type, fields, talker: talker, at: receivedAt, into: &fixes)
                statistics.sentences += 1
            } catch {
                statistics.count(error)
            }
        }
        statistics.fixes += fixes.count - before
    }

    private mutating func dispatch(
        _ type: SentenceType, _ f: NMEAFields, talker: UInt16, at time: SampleTime,
        into fixes: inout [GNSSFix]
    ) throws(RejectReason) {
        switch type {
        case .rmc: try assembler.applyRMC(f, talker: talker, at: time, into: &fixes)
        case .gga: try assembler.applyGGA(f, talker: talker, at: time, into: &fixes)
        case .gll: try assembler.applyGLL(f, talker: talker, at: time, into: &fixes)
        case .gns: try assembler.applyGNS(f, talker: talker, at: time, into: &fixes)
        case .vtg: try assembler.applyVTG(f, talker: talker, at: time, into: &fixes)
        case .zda: try assembler.applyZDA(f, talker: talker, at: time, into: &fixes)
        case .gsa: try assembler.applyGSA(f, talker: talker, at: time, into: &fixes)
        case .gsv: try assembler.applyGSV(f, talker: talker, at: time, into: &fixes)
        }
    }

    /// Decodes one line given as a string; returns the fixes of the epochs it completes.
    public mutating func decode(sentence: String, receivedAt: SampleTime) -> [GNSSFix] {
        var out: [GNSSFix] = []
        var s = sentence
        s.withUTF8 { decode(sentence: UnsafeRawBufferPointer($0), receivedAt: receivedAt, into: &out) }
        return out
    }

    /// Flushes the epoch in progress at the end of input.
    public mutating func finish() -> [GNSSFix] {
        var out: [GNSSFix] = []
        assembler.flush(into: &out)
        statistics.fixes += out.count
        return out
    }
}
