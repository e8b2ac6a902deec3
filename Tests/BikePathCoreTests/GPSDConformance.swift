import Foundation
@testable import BikePathCore

/// One TPV report from a gpsd `.chk` file.
struct GPSDReport {
    var time: String?
    var mode: Int
    var lat: Double?
    var lon: Double?
    var speed: Double?
    var track: Double?
}

/// Why one scored gpsd TPV did not agree with our fix.
enum Disagreement: String, CaseIterable {
    case noFixWithThatTime = "no fix with that time"
    case mode, position, speed, track
}

/// The agreement of one log with gpsd.
///
/// Matching rule: gpsd reports a TPV after each sentence until it has learnt which
/// sentence ends the receiver's cycle, so one epoch can yield several TPVs with the
/// same time, each more complete than the last. Per run of consecutive TPVs whose
/// times lie within 10 ms of each other (gpsd's own threshold for "the time
/// changed": a few receivers stamp GLL 3 ms apart from GGA in one cycle), gpsd's
/// *last* TPV is its report for that epoch, and it is scored against
/// our fix with that time (the k-th such run against our k-th fix with that time,
/// for receivers that repeat a time). Earlier TPVs of the run are superseded and
/// counted separately; TPVs without a time have no key to match on and are counted
/// separately too.
struct LogAgreement {
    var name: String
    var scored = 0
    var matched = 0
    var superseded = 0
    /// Superseded TPVs that nonetheless agree with our fix for their time (for information).
    var supersededAgreeing = 0
    var timeless = 0
    var disagreements: [Disagreement: Int] = [:]
    var examples: [String] = []
    var statistics = DecodeStatistics()

    var percent: Double { scored == 0 ? 100 : 100 * Double(matched) / Double(scored) }
}

enum GPSDConformance {
    static func fixturesDirectory() -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/gpsd")
    }

    static func decode(logData: Data) -> (fixes: [GNSSFix], statistics: DecodeStatistics) {
        var decoder = NMEADecoder()
        var fixes: [GNSSFix] = []
        var index: Int64 = 0
        logData.withUnsafeBytes { (all: UnsafeRawBufferPointer) in
            var start = 0
            while start < all.count {
                var end = start
                while end < all.count && all[end] != 0x0A { end += 1 }
                let line = UnsafeRawBufferPointer(rebasing: all[start..<end])
                if !(line.count > 0 && line[0] == UInt8(ascii: "#")) {
                    decoder.decode(sentence: line, receivedAt: SampleTime(nanoseconds: index * 1_000_000), into: &fixes)
                    index += 1
                }
                start = end + 1
            }
        }
        fixes += decoder.finish()
        return (fixes, decoder.statistics)
    }

    static func reports(checkData: Data) -> [GPSDReport] {
        var out: [GPSDReport] = []
        for line in String(decoding: checkData, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard line.hasPrefix("{\"class\":\"TPV\"") else { continue }
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { continue }
            out.append(
                GPSDReport(
                    time: object["time"] as? String, mode: object["mode"] as? Int ?? 0,
                    lat: object["lat"] as? Double, lon: object["lon"] as? Double,
                    speed: object["speed"] as? Double, track: object["track"] as? Double))
        }
        return out
    }

    static func compare(name: String, fixes: [GNSSFix], reports: [GPSDReport]) -> LogAgreement {
        var result = LogAgreement(name: name)
        var ours: [String: [GNSSFix]] = [:]
        for fix in fixes {
            guard let time = fix.time else { continue }
            ours[FixJSON.iso8601(time), default: []].append(fix)
        }
        var runsSeen: [String: Int] = [:]
        for (i, report) in reports.enumerated() {
            guard let time = report.time else { result.timeless += 1; continue }
            if i + 1 < reports.count, let next = reports[i + 1].time, sameEpoch(time, next) {
                result.superseded += 1
                if let fix = ours[time]?.last, disagreement(report, fix) == nil { result.supersededAgreeing += 1 }
                continue
            }
            result.scored += 1
            let k = runsSeen[time, default: 0]
            runsSeen[time] = k + 1
            guard let candidates = ours[time], !candidates.isEmpty else {
                record(.noFixWithThatTime, time, report, nil, &result)
                continue
            }
            let fix = candidates[min(k, candidates.count - 1)]
            if let problem = disagreement(report, fix) {
                record(problem, time, report, fix, &result)
            } else {
                result.matched += 1
            }
        }
        return result
    }

    /// Whether two gpsd times are less than 10 ms apart.
    static func sameEpoch(_ a: String, _ b: String) -> Bool {
        guard let x = milliseconds(a), let y = milliseconds(b) else { return a == b }
        return abs(x - y) < 10
    }

    /// `2005-03-13T12:08:27.523Z` → milliseconds since 1970.
    static func milliseconds(_ iso: String) -> Int64? {
        let u = Array(iso.utf8)
        guard u.count == 24 else { return nil }
        func n(_ r: Range<Int>) -> Int { u[r].reduce(0) { $0 * 10 + Int($1) - 48 } }
        let days = CivilDate.days(year: n(0..<4), month: n(5..<7), day: n(8..<10))
        let seconds = Int64(days) * 86400 + Int64(n(11..<13) * 3600 + n(14..<16) * 60 + n(17..<19))
        return seconds * 1000 + Int64(n(20..<23))
    }

    static func disagreement(_ r: GPSDReport, _ f: GNSSFix) -> Disagreement? {
        if r.mode != f.mode.rawValue { return .mode }
        if !close(r.lat, f.latitude, 1e-6) || !close(r.lon, f.longitude, 1e-6) { return .position }
        if !close(r.speed, f.speed, 0.01) { return .speed }
        if !close(r.track, f.track, 0.1) { return .track }
        return nil
    }

    static func close(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (a?, b?): abs(a - b) <= tolerance
        default: false
        }
    }

    static func record(_ d: Disagreement, _ time: String, _ r: GPSDReport, _ f: GNSSFix?, _ result: inout LogAgreement) {
        result.disagreements[d, default: 0] += 1
        if result.examples.count < 3 {
            let ours = f.map { FixJSON.line($0).trimmingCharacters(in: .newlines) } ?? "none"
            result.examples.append(
                "\(time) \(d.rawValue): gpsd mode \(r.mode) lat \(r.lat.map { "\($0)" } ?? "-") lon \(r.lon.map { "\($0)" } ?? "-") speed \(r.speed.map { "\($0)" } ?? "-") track \(r.track.map { "\($0)" } ?? "-"); ours \(ours)"
            )
        }
    }
}

extension FixJSON {
    static func iso8601(_ time: UTCTime) -> String {
        var out: [UInt8] = []
        appendISO8601(time, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
