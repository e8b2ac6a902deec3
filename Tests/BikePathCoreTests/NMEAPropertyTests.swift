import Foundation
import BikePathFixtures
import BikePathTestSupport
import Testing
@testable import BikePathCore

func ddmm(_ degrees: Double, width: Int) -> String {
    let d = Int(degrees)
    let minutes = (degrees - Double(d)) * 60
    let whole = String(d).count < width ? String(repeating: "0", count: width - String(d).count) + String(d) : String(d)
    return whole + String(format: "%07.4f", minutes)
}

@Suite struct NMEAPropertyTests {
    /// Random RMC sentences decode back to the values they were made from.
    @Test func randomRMCRoundTrips() throws {
        var rng = SplitMix64(state: 42)
        for _ in 0..<2000 {
            let lat = Double.random(in: -89.9...89.9, using: &rng), lon = Double.random(in: -179.9...179.9, using: &rng)
            let knots = Double(Int.random(in: 0...9999, using: &rng)) / 100, track = Double(Int.random(in: 0...3599, using: &rng)) / 10
            let h = Int.random(in: 0...23, using: &rng), m = Int.random(in: 0...59, using: &rng), s = Int.random(in: 0...59, using: &rng)
            let day = Int.random(in: 1...28, using: &rng), month = Int.random(in: 1...12, using: &rng),
                year = Int.random(in: 0...79, using: &rng)
            let payload = String(
                format: "GNRMC,%02d%02d%02d.00,A,%@,%@,%@,%@,%.2f,%.1f,%02d%02d%02d,,,A", h, m, s,
                ddmm(abs(lat), width: 2), lat < 0 ? "S" : "N", ddmm(abs(lon), width: 3), lon < 0 ? "W" : "E",
                knots, track, day, month, year)
            let (fixes, stats) = decodeAll([sentence(payload)])
            #expect(stats.rejected == 0, "\(payload)")
            let fix = try #require(fixes.first)
            #expect(abs(try #require(fix.latitude) - lat) < 1e-5)
            #expect(abs(try #require(fix.longitude) - lon) < 1e-5)
            #expect(abs(try #require(fix.speed) - knots * 1852 / 3600) < 1e-9)
            #expect(fix.track == track)
            let expected = String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000Z", 2000 + year, month, day, h, m, s)
            #expect(FixJSON.iso8601(try #require(fix.time)) == expected)
        }
    }

    /// Mutated real sentences never crash; every line lands in exactly one counter;
    /// whatever is accepted had a valid checksum; JSON output is always valid JSON.
    @Test func mutatedSentencesAreCountedAndNeverCrash() throws {
        var rng = SplitMix64(state: 7)
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        let corpus = leaEpoch.map { Array($0.utf8) }
        for i in 0..<20000 {
            var line = corpus[i % corpus.count]
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: line[Int.random(in: 0..<line.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            case 1: line = Array(line.prefix(Int.random(in: 0..<line.count, using: &rng)))
            case 2: line.insert(UInt8.random(in: 0...255, using: &rng), at: Int.random(in: 0...line.count, using: &rng))
            default: line = (0..<Int.random(in: 0..<120, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            }
            line.withUnsafeBytes { decoder.decode(sentence: $0, receivedAt: SampleTime(nanoseconds: Int64(i)), into: &fixes) }
        }
        fixes += decoder.finish()
        let s = decoder.statistics
        #expect(s.lines == 20000)
        #expect(s.sentences + s.ignoredSentences + s.rejected == s.lines)
        #expect(s.badChecksum > 0 && s.truncated + s.missingChecksum > 0 && s.binary > 0)
        for fix in fixes {
            let json = Data(FixJSON.line(fix).utf8)
            #expect((try? JSONSerialization.jsonObject(with: json)) != nil, "\(FixJSON.line(fix))")
            if let lat = fix.latitude { #expect(abs(lat) <= 90) }
            if let lon = fix.longitude { #expect(abs(lon) <= 180) }
        }
    }

    /// Cutting a sentence short either rejects it or, when the cut only removed the
    /// line ending, changes nothing.
    @Test func truncationNeverChangesValues() {
        let full = decodeAll(leaEpoch).fixes
        for (index, line) in leaEpoch.enumerated() {
            for cut in 1..<line.utf8.count {
                var lines = leaEpoch
                lines[index] = String(line.utf8.prefix(cut))!
                let (fixes, stats) = decodeAll(lines)
                #expect(stats.rejected == 1)
                // The epoch minus that sentence: never a value the full epoch lacked.
                for fix in fixes {
                    if let lat = fix.latitude { #expect(lat == full[0].latitude) }
                    if let speed = fix.speed { #expect(speed == full[0].speed) }
                }
            }
        }
    }

    @Test func jsonFieldsFollowGPSDFormatting() {
        let fix = GNSSFix(
            receivedAt: SampleTime(nanoseconds: 0),
            time: UTCTime(nanosecondsSince1970: 1_420_000_039_000_000_000 + 7_000_000),
            mode: .threeD, latitude: -0.5, longitude: 4.5776455, altitudeMSL: -4.2, speed: 0.1085, track: 359.99995)
        #expect(
            FixJSON.line(fix)
                == "{\"time\":\"2014-12-31T04:27:19.007Z\",\"mode\":3,\"lat\":-0.500000000,\"lon\":4.577645500,\"alt\":-4.2000,\"speed\":0.109,\"track\":360.0000}\n"
        )
        let bare = GNSSFix(receivedAt: SampleTime(nanoseconds: 0), mode: .noFix)
        #expect(FixJSON.line(bare) == "{\"mode\":1}\n")
    }
}
