import Testing
@testable import BikePathCore

@Suite struct NMEAWriterTests {
    @Test func checksumAgreesWithARealReceiverSentence() {
        // From gpsd's test/daemon/ac12.log.
        let real = "$GPGGA,193221.00,2037.72792,N,08704.08478,W,1,04,1.7,-30.40,M,-13.9,M,,*7D"
        let body = real.dropFirst().prefix { $0 != "*" }
        #expect(NMEAWriter.sentence(body: String(body)) == real)
    }

    @Test func rmcAndGGAForA3DFix() {
        let t = UTCCivilTime(year: 2023, month: 7, day: 9, hour: 14, minute: 43, second: 17, nanosecond: 599_000_000).utcTime
        let fix = GNSSFix(
            receivedAt: SampleTime(nanoseconds: 0), time: t, mode: .threeD, latitude: 51.523087,
            longitude: -0.1049326, altitudeMSL: 19.781, speed: 1.153, hdop: 4.2)
        let s = NMEAWriter.sentences(for: fix)
        #expect(s.count == 2)
        #expect(s[0].hasPrefix("$GPRMC,144317.599,A,5131.385220,N,00006.295956,W,2.241,,090723,,,A*"))
        #expect(s[1].hasPrefix("$GPGGA,144317.599,5131.385220,N,00006.295956,W,1,04,4.20,19.781,M,,,,*"))
        for line in s {
            let body = line.dropFirst().prefix { $0 != "*" }
            #expect(line == NMEAWriter.sentence(body: String(body)))
        }
    }

    @Test func noFixLeavesPositionEmpty() {
        let fix = GNSSFix(
            receivedAt: SampleTime(nanoseconds: 0), time: UTCTime(nanosecondsSince1970: 0), mode: .noFix,
            latitude: 51, longitude: 0, altitudeMSL: 10, speed: 0)
        let s = NMEAWriter.sentences(for: fix)
        #expect(s[0].hasPrefix("$GPRMC,000000.000,V,,,,,,,010170,,,N*"))
        #expect(s[1].hasPrefix("$GPGGA,000000.000,,,,,0,,,,,,,,*"))
        #expect(NMEAWriter.sentences(for: GNSSFix(receivedAt: SampleTime(nanoseconds: 0))).isEmpty)
    }

    @Test func civilTimeRoundTrips() {
        for ns: Int64 in [0, 951_782_400_000_000_000, 1_688_913_797_599_000_000, -86_400_000_000_001] {
            let c = UTCCivilTime(UTCTime(nanosecondsSince1970: ns))
            #expect(c.utcTime.nanosecondsSince1970 == ns)
        }
        let c = UTCCivilTime(UTCTime(nanosecondsSince1970: 951_782_400_000_000_000))
        #expect(c.iso8601Milliseconds == "2000-02-29T00:00:00.000Z")
        #expect(UTCCivilTime.parseISO8601("2023-07-09T14:43:17.599Z")?.utcTime.nanosecondsSince1970 == 1_688_913_797_599_000_000)
        #expect(UTCCivilTime.parseISO8601("2023-07-09 14:43:17Z") == nil)
    }
}
