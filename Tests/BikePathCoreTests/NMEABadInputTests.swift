import Testing
@testable import BikePathCore

/// Every kind of bad input is counted under its own kind, changes no fix, and
/// never crashes.
@Suite struct NMEABadInputTests {
    let good = sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,90.0,230324,,,A")

    func rejects(_ line: String) -> DecodeStatistics {
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        fixes += decoder.decode(sentence: line, receivedAt: SampleTime(nanoseconds: 0))
        fixes += decoder.finish()
        #expect(fixes.isEmpty, "\(line) produced a fix")
        #expect(decoder.statistics.rejected == 1, "\(line)")
        #expect(decoder.statistics.sentences == 0)
        return decoder.statistics
    }

    @Test func garbageTextIsNotNMEA() {
        #expect(rejects("hello world").notNMEA == 1)
        #expect(rejects("").notNMEA == 1)
        #expect(rejects("GPRMC,120000.00,A").notNMEA == 1)
    }

    @Test func binaryBytesAreCountedAsBinary() {
        #expect(rejects("\u{01}\u{7F}\u{1B}abc").binary == 1)
        var bytes = Array(good.utf8)
        bytes[20] = 0xB5  // a u-blox sync byte inside the sentence
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        bytes.withUnsafeBytes { decoder.decode(sentence: $0, receivedAt: SampleTime(nanoseconds: 0), into: &fixes) }
        fixes += decoder.finish()
        #expect(fixes.isEmpty && decoder.statistics.binary == 1)
    }

    @Test func badAndMissingChecksumsAreRejected() {
        var wrong = good
        wrong.removeLast()
        #expect(rejects(wrong + (good.hasSuffix("0") ? "1" : "0")).badChecksum == 1)
        #expect(rejects(String(good.prefix(while: { $0 != "*" }))).missingChecksum == 1)
        #expect(rejects(good + "00").badChecksum == 1)
    }

    @Test func truncatedSentencesAreRejected() {
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038")).truncated == 1)
        #expect(rejects(sentence("GPGSA,A,3,01,02")).truncated == 1)
        #expect(rejects(sentence("GPGGA,120000")).truncated == 1)
    }

    @Test func overlongLinesAreRejected() {
        #expect(rejects(sentence("GPTXT," + String(repeating: "A", count: 300))).overlong == 1)
        #expect(rejects(sentence("GPGSV" + String(repeating: ",1", count: 70))).overlong == 1)
    }

    @Test func malformedFieldsAreRejected() {
        #expect(rejects(sentence("GPRMC,12x000.00,A,4807.038,N,01131.000,E,10.0,90.0,230324,,,A")).malformedField == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,Q,01131.000,E,10.0,90.0,230324,,,A")).malformedField == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,1.0.0,90.0,230324,,,A")).malformedField == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,90.0,2303-4,,,A")).malformedField == 1)
    }

    @Test func absurdValuesAreOutOfRange() {
        // Latitude 91°, longitude 181°, 61 minutes, month 13, hour 25, speed of 5000 knots.
        #expect(rejects(sentence("GPRMC,120000.00,A,9100.000,N,01131.000,E,10.0,90.0,230324,,,A")).outOfRange == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,18100.000,E,10.0,90.0,230324,,,A")).outOfRange == 1)
        #expect(rejects(sentence("GPGGA,120000.00,4861.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")).outOfRange == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,90.0,231324,,,A")).outOfRange == 1)
        #expect(rejects(sentence("GPRMC,250000.00,A,4807.038,N,01131.000,E,10.0,90.0,230324,,,A")).outOfRange == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,5000.0,90.0,230324,,,A")).outOfRange == 1)
        #expect(rejects(sentence("GPRMC,120000.00,A,4807.038,N,01131.000,E,10.0,90.0,300224,,,A")).outOfRange == 1)
    }

    @Test func datesBefore2000AreImplausible() {
        // The GPS epoch a receiver reports before it knows the date…
        #expect(rejects(sentence("GPRMC,000000.00,A,4807.038,N,01131.000,E,0.0,0.0,060180,,,A")).implausibleDate == 1)
        #expect(rejects(sentence("GPZDA,000000.00,06,01,1980,00,00")).implausibleDate == 1)
        // …and a week-rollover date: 1999-08-22 sent in April 2019 (gpsd's april6_2019.log).
        #expect(rejects("$GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A*59").implausibleDate == 1)
    }

    @Test func aRejectedSentenceLeavesTheEpochUntouched() throws {
        let bad = sentence("GPGGA,120000.00,9100.000,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let (fixes, stats) = decodeAll([good, bad])
        #expect(fixes.count == 1)
        #expect(abs(try #require(fixes.first?.latitude) - (48 + 7.038 / 60)) < 1e-9)
        #expect(fixes.first?.altitudeMSL == nil)
        #expect(stats.outOfRange == 1)
    }

    @Test func noiseBeforeASentenceIsDroppedAndCounted() {
        let (fixes, stats) = decodeAll(["\u{B5}b\u{01}\u{07} " + good])
        #expect(fixes.count == 1)
        #expect(stats.noiseBeforeSentence == 1 && stats.rejected == 0)
    }

    @Test func otherSentenceTypesAreCountedAsIgnored() {
        let (fixes, stats) = decodeAll([sentence("GPTXT,01,01,02,u-blox ag"), sentence("PUBX,00,1,2")])
        #expect(fixes.isEmpty && stats.ignoredSentences == 2 && stats.rejected == 0)
    }
}
