import Testing
@testable import BikePathCore

/// Builds a sentence with a correct checksum from its payload (between `$` and `*`).
func sentence(_ payload: String) -> String {
    let sum = payload.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    let hex = Array("0123456789ABCDEF")
    return "$\(payload)*\(hex[Int(sum >> 4)])\(hex[Int(sum & 15)])"
}

func decodeAll(_ lines: [String]) -> (fixes: [GNSSFix], statistics: DecodeStatistics) {
    var decoder = NMEADecoder()
    var fixes: [GNSSFix] = []
    for (i, line) in lines.enumerated() {
        fixes += decoder.decode(sentence: line, receivedAt: SampleTime(nanoseconds: Int64(i) * 1_000_000))
    }
    fixes += decoder.finish()
    return (fixes, decoder.statistics)
}

/// One u-blox LEA-5H epoch from gpsd's regression log ublox-lea-5h.log.
let leaEpoch = [
    "$GPRMC,083724.00,A,5155.55430,N,00434.65878,E,0.392,,210810,,,A*7C",
    "$GPVTG,,T,,M,0.392,N,0.727,K,A*29",
    "$GPGGA,083724.00,5155.55430,N,00434.65878,E,1,06,2.51,-4.2,M,46.0,M,,*7B",
    "$GPGSA,A,3,27,15,09,28,18,08,,,,,,,3.33,2.51,2.20*04",
    "$GPGSV,3,1,12,05,04,187,,08,11,078,29,09,43,270,37,12,03,212,*75",
    "$GPGSV,3,2,12,15,78,214,34,17,25,106,18,18,32,294,39,22,13,324,20*77",
    "$GPGSV,3,3,12,24,04,342,,26,55,139,24,27,62,276,36,28,39,055,26*77",
    "$GPGLL,5155.55430,N,00434.65878,E,083724.00,A,A*67",
]

@Suite struct NMEADecoderTests {
    @Test func assemblesOneFixPerEpochFromAllItsSentences() throws {
        let (fixes, stats) = decodeAll(leaEpoch)
        #expect(fixes.count == 1)
        let fix = try #require(fixes.first)
        #expect(FixJSON.iso8601(try #require(fix.time)) == "2010-08-21T08:37:24.000Z")
        #expect(fix.mode == .threeD)
        #expect(abs(try #require(fix.latitude) - (51 + 55.55430 / 60)) < 1e-9)
        #expect(abs(try #require(fix.longitude) - (4 + 34.65878 / 60)) < 1e-9)
        #expect(fix.altitudeMSL == -4.2)
        #expect(abs(try #require(fix.speed) - 0.392 * 1852 / 3600) < 1e-9)
        #expect(fix.track == nil)
        #expect(fix.satellitesUsed == 6)
        #expect(fix.satellitesSeen == 12)
        #expect(fix.hdop == 2.51 && fix.pdop == 3.33 && fix.vdop == 2.20)
        #expect(stats.sentences == leaEpoch.count && stats.rejected == 0 && stats.fixes == 1)
    }

    @Test func aNewTimeStartsANewEpoch() {
        let next = sentence("GPRMC,083725.00,A,5155.55467,N,00434.65870,E,0.274,12.5,210810,,,A")
        let (fixes, _) = decodeAll(leaEpoch + [next])
        #expect(fixes.count == 2)
        #expect(fixes.last?.track == 12.5)
        #expect(fixes.last?.receivedAt == SampleTime(nanoseconds: Int64(leaEpoch.count) * 1_000_000))
    }

    @Test func decodesAnyTalker() {
        for talker in ["GP", "GN", "GL", "GA", "GB", "BD", "GQ"] {
            let (fixes, stats) = decodeAll([sentence("\(talker)RMC,120000.00,A,4807.038,N,01131.000,W,10.0,90.0,230324,,,A")])
            #expect(fixes.count == 1, "talker \(talker)")
            #expect(fixes.first?.longitude.map { $0 < 0 } == true)
            #expect(stats.sentences == 1)
        }
    }

    @Test func gnsAndZDAGiveTimeAndPosition() throws {
        let (fixes, _) = decodeAll([
            sentence("GPZDA,224749.00,31,12,2014,00,00"),
            sentence("GPGNS,224749.00,3333.4268304,N,11153.3538273,W,D,19,0.6,406.110,-26.294,6.0,0138,S"),
        ])
        let fix = try #require(fixes.last)
        #expect(FixJSON.iso8601(try #require(fix.time)) == "2014-12-31T22:47:49.000Z")
        #expect(fix.mode == .threeD)
        #expect(fix.altitudeMSL == 406.110)
    }

    @Test func ggaWithoutADateHasNoTimeUntilRMCGivesOne() throws {
        let gga = sentence("GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let (alone, _) = decodeAll([gga])
        #expect(alone.first?.time == nil)
        #expect(alone.first?.mode == .threeD)
        // Midnight rollover: the GGA after 23:59:59 belongs to the next day.
        let (fixes, _) = decodeAll([
            sentence("GPRMC,235959.00,A,4807.038,N,01131.000,E,0.0,0.0,311214,,,A"), gga,
            sentence("GPGGA,000000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
        ])
        #expect(fixes.map { $0.time.map(FixJSON.iso8601) } == ["2014-12-31T23:59:59.000Z", "2015-01-01T00:00:00.000Z"])
    }

    @Test func invalidStatusMeansNoFixAndNoPosition() throws {
        let (fixes, _) = decodeAll([sentence("GPRMC,120000.00,V,4807.038,N,01131.000,E,,,230324,,,N")])
        let fix = try #require(fixes.first)
        #expect(fix.mode == .noFix)
        #expect(fix.latitude == nil && fix.longitude == nil)
    }

    @Test func theStringAndBufferEntryPointsAgree() {
        var a = NMEADecoder(), b = NMEADecoder()
        var viaBuffer: [GNSSFix] = []
        var viaString: [GNSSFix] = []
        for (i, line) in leaEpoch.enumerated() {
            let t = SampleTime(nanoseconds: Int64(i))
            viaString += a.decode(sentence: line, receivedAt: t)
            var copy = line + "\r\n"
            copy.withUTF8 { b.decode(sentence: UnsafeRawBufferPointer($0), receivedAt: t, into: &viaBuffer) }
        }
        viaString += a.finish()
        viaBuffer += b.finish()
        #expect(viaString == viaBuffer)
        #expect(viaString.count == 1)
    }
}
