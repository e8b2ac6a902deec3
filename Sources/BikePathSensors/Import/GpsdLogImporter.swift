import BikePathCore

/// Imports a gpsd regression log (`*.log`: NMEA text, `#` comment lines, sometimes binary
/// receiver output mixed in) into recording records.
///
/// Kept: every line that is, or ends in, a printable-ASCII sentence starting with `$` or
/// `!` and a five-character address — what gpsd's packet layer would pick out of the byte
/// stream. Checksums are *not* checked here: the recording keeps what the receiver sent,
/// and the NMEA decoder counts bad ones. Comments and the Delay-Cookie follow
/// `GpsdLogLines`, the rules `decode` uses too.
///
/// Receive times are synthetic (the logs have none) but monotonic: the clock starts at 0
/// and follows the receiver's UTC time of day (field 1 of RMC/GGA/GNS/ZDA/GBS/GST, field
/// 5 of GLL): when a sentence carries a later time of day than any before, the clock
/// moves to that time relative to the first one seen. Every other sentence (same epoch,
/// no time, a time that went backwards) advances it by 1 ms, so it is strictly monotonic.
/// A jump of more than an hour re-anchors the clock instead of leaping with it.
public enum GpsdLogImporter {
    /// What an import read.
    public struct Statistics: Sendable, Equatable {
        public var lines = 0
        public var commentLines = 0
        public var sentences = 0
        /// Lines with bytes that were not part of a sentence (binary noise), whole or in part.
        public var junkLines = 0
    }

    /// Reads a gpsd log into a recording of its NMEA sentences, with synthetic receive times;
    /// `writer` goes into the header.
    /// - Throws: `ImportError` when the file cannot be read or holds no NMEA sentence.
    public static func load(path: String, writer: String = "bikepathd") throws(ImportError) -> (ImportedRecording, Statistics) {
        let bytes = try readWholeFile(path)
        let (sentences, stats) = extractSentences(bytes)
        guard !sentences.isEmpty else {
            throw ImportError(path: path, message: "no NMEA sentences found (is this a gpsd log?)")
        }
        let times = synthesizeReceiveTimes(sentences)
        let records = zip(times, sentences).map { SensorRecord.nmea($0, $1) }
        let header = RecordingHeader(
            source: "import", sourceDetail: "gpsd-log: \(baseName(path)) (receive times synthetic, see docs/recording-format.md)",
            writer: writer,
            sensors: [.init(id: "gnss", kind: "gnss", name: receiverName(bytes) ?? "gpsd regression log", unit: "nmea0183")])
        return (ImportedRecording(header: header, records: records), stats)
    }

    /// The sentences in a log, in order, and what else was there.
    public static func extractSentences(_ bytes: [UInt8]) -> ([String], Statistics) {
        var stats = Statistics()
        var out: [String] = []
        var start = 0
        var rules = GpsdLogLines()
        while start < bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var stop = end
            while stop > start && bytes[stop - 1] == 0x0D { stop -= 1 }
            if end > start || end < bytes.count { stats.lines += 1 }
            if stop > start {
                if rules.isComment(bytes[start..<stop]) {
                    stats.commentLines += 1
                } else {
                    let line = rules.removingDelayCookie(bytes[start..<stop]) ?? Array(bytes[start..<stop])
                    if let s = sentenceStart(line, 0, line.count) {
                        out.append(String(decoding: line[s...], as: UTF8.self))
                        stats.sentences += 1
                        if s > 0 { stats.junkLines += 1 }
                    } else {
                        stats.junkLines += 1
                    }
                }
            }
            start = end + 1
        }
        return (out, stats)
    }

    /// First `$`/`!` from which the rest of the line is a printable sentence.
    private static func sentenceStart(_ b: [UInt8], _ start: Int, _ stop: Int) -> Int? {
        guard stop - start >= 6 else { return nil }
        var i = start
        outer: while i <= stop - 6 {
            defer { i += 1 }
            guard b[i] == UInt8(ascii: "$") || b[i] == UInt8(ascii: "!") else { continue }
            guard stop - i <= RecordingFormat.maxNMEALength else { continue }
            for j in (i + 1)..<(i + 6) {
                let c = b[j]
                guard (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) else { continue outer }
            }
            for j in (i + 6)..<stop where b[j] < 0x20 || b[j] > 0x7E { continue outer }
            return i
        }
        return nil
    }

    /// See the type comment for the rules.
    public static func synthesizeReceiveTimes(_ sentences: [String]) -> [SampleTime] {
        let step: Int64 = 1_000_000
        let hour: Int64 = 3_600_000_000_000
        var now: Int64 = -step
        // The clock follows the latest time of day seen so far, from an anchor, so that a
        // receiver whose sentences disagree (ZDA a second ahead of GGA) cannot make it race.
        var anchor: (timeOfDay: Int64, time: Int64)?
        var latest: Int64 = 0
        var dayOffset: Int64 = 0
        let maxDayOffset = 366 * 24 * hour
        var out: [SampleTime] = []
        out.reserveCapacity(sentences.count)
        for s in sentences {
            var t = now + step
            if var tod = timeOfDay(s) {
                tod += dayOffset
                if let a = anchor {
                    // Past midnight. Bounded: times of day that flip between 23:00 and 00:00
                    // would otherwise add a day every two sentences and overflow Int64
                    // after ~200 000 of them; past a year the flips are not midnights.
                    if tod < latest - 12 * hour, dayOffset < maxDayOffset {
                        dayOffset += 24 * hour
                        tod += 24 * hour
                    }
                    if tod > latest {
                        if tod - latest <= hour {
                            t = max(t, a.time + (tod - a.timeOfDay))
                        } else {
                            anchor = (tod, t)
                        }
                        latest = tod
                    }
                } else {
                    anchor = (tod, t)
                    latest = tod
                }
            }
            now = t
            out.append(SampleTime(nanoseconds: t))
        }
        return out
    }

    /// UTC time of day in ns from the sentence's time field, if it has a valid one.
    static func timeOfDay(_ sentence: String) -> Int64? {
        let fields = sentence.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard let address = fields.first, address.count == 6 else { return nil }
        let type = String(decoding: address.suffix(3), as: UTF8.self)
        let index: Int
        switch type {
        case "RMC", "GGA", "GNS", "ZDA", "GBS", "GST": index = 1
        case "GLL": index = 5
        default: return nil
        }
        guard fields.count > index else { return nil }
        let f = Array(fields[index])
        guard f.count >= 6, f[0..<6].allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        func d(_ i: Int) -> Int64 { Int64(f[i] - 48) }
        let h = d(0) * 10 + d(1), m = d(2) * 10 + d(3), s = d(4) * 10 + d(5)
        guard h < 24, m < 60, s < 61 else { return nil }
        var ns: Int64 = 0
        if f.count > 7, f[6] == UInt8(ascii: ".") {
            var scale: Int64 = 100_000_000
            for c in f[7...] {
                guard c >= 48 && c <= 57 else { break }
                ns += Int64(c - 48) * scale
                scale /= 10
            }
        }
        return ((h * 60 + m) * 60 + s) * 1_000_000_000 + ns
    }

    /// The `# Name:` comment of a gpsd regression log.
    static func receiverName(_ bytes: [UInt8]) -> String? {
        let prefix = Array("# Name: ".utf8)
        guard let r = bytes.firstRange(of: prefix) else { return nil }
        let rest = bytes[r.upperBound...].prefix { $0 != 0x0A && $0 != 0x0D }
        let name = String(decoding: rest, as: UTF8.self)
        return name.isEmpty ? nil : name
    }
}
