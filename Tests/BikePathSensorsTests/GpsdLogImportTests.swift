import BikePathTestSupport
import Testing
import BikePathCore
@testable import BikePathSensors

@Suite(.ownThreads) struct GpsdLogImportTests {
    static let binaryLog = Paths.fixtures + "/gpsd/ac12_binary.log"

    @Test func keepsOnlySentencesFromALogWithBinaryNoise() throws {
        let (rec, stats) = try GpsdLogImporter.load(path: Self.binaryLog)
        let lines = textLines(Self.binaryLog)
        #expect(stats.commentLines == lines.filter { $0.hasPrefix("#") }.count)
        #expect(stats.junkLines > 0)
        let sentences = rec.records.compactMap { if case .nmea(_, let s) = $0 { s } else { nil } }
        #expect(sentences.count == stats.sentences)
        #expect(sentences.count == rec.records.count)
        // Every clean `$…` line is kept verbatim, in order; nothing else gets in.
        let printable = lines.filter { $0.hasPrefix("$") && $0.utf8.allSatisfy { $0 >= 0x20 && $0 <= 0x7E } }
        #expect(sentences == printable)
        #expect(sentences.filter { $0.hasPrefix("$GPRMC") }.count == 5)
        #expect(rec.header.sensors.first?.name == "Magellan Professional (formerly Thales/Ashtech) AC12")
    }

    @Test func synthesizedClockIsMonotonicAndFollowsUTC() throws {
        let (rec, _) = try GpsdLogImporter.load(path: Self.binaryLog)
        for (a, b) in zip(rec.records, rec.records.dropFirst()) { #expect(a.time < b.time) }
        // RMC at 18:35:30 and 18:35:34 UTC are 4 s apart on the synthesized clock too,
        // although this receiver's ZDA runs a second ahead of its RMC/GGA.
        let rmc = rec.records.compactMap { r -> SampleTime? in
            if case .nmea(let t, let s) = r, s.hasPrefix("$GPRMC") { t } else { nil }
        }
        #expect(rmc.count == 5)
        #expect(abs((rmc[4] - rmc[0]) - 4) < 0.02)
    }

    @Test func delayCookiesAreRemoved() throws {
        let (rec, stats) = try GpsdLogImporter.load(path: Paths.fixtures + "/gpsd/tcp-torture.log")
        let sentences = rec.records.compactMap { if case .nmea(_, let s) = $0 { s } else { nil } }
        #expect(sentences.contains("$GPGGA,193221.00,2037.72792,N,08704.08478,W,1,04,1.7,-30.40,M,-13.9,M,,*7D"))
        #expect(!sentences.contains { $0.contains("|") })
        #expect(stats.junkLines == 1)  // the leading fragment ",1.7,-30.40,…" has no sentence start
    }

    @Test func timeOfDayFields() {
        let expected: Int64 = ((18 * 60 + 35) * 60 + 30) * 1_000_000_000 + 250_000_000
        #expect(GpsdLogImporter.timeOfDay("$GPRMC,183530.25,A") == expected)
        #expect(GpsdLogImporter.timeOfDay("$GNGLL,2037.7,N,08704.0,W,000001.00,A") == 1_000_000_000)
        #expect(GpsdLogImporter.timeOfDay("$GPGSV,3,1,10") == nil)
        #expect(GpsdLogImporter.timeOfDay("$GPRMC,,V") == nil)
        #expect(GpsdLogImporter.timeOfDay("$GPRMC,996030,V") == nil)
    }

    @Test func notALog() {
        let csv = Paths.fixtures + "/allthedocks/GX010056-gps.csv"
        #expect(throws: ImportError(path: csv, message: "no NMEA sentences found (is this a gpsd log?)")) {
            try GpsdLogImporter.load(path: csv)
        }
    }
}
