import BikePathCore
import BikePathSensors
import Foundation

/// Trip distance against the receiver's own Doppler speed integrated over the trip
/// (docs/evaluation.md "Trip distance"). Each ride goes the product's way:
/// a GoPro CSV export is imported as `bikepathd import gopro PREFIX` does (GPS rows become
/// RMC + GGA sentences), a recording is read as it is, and the chain replays it. Printed per
/// trip: the distance from positions alone (the chain before the Doppler integration, the same chain with
/// the ground-speed integration switched off), the distance now, and the Doppler integral.
enum DistanceEvaluation {
    struct Row {
        var ride: String
        var start: Double
        var end: Double
        var positions: Double
        var now: Double
        var doppler: Double
    }

    /// `inputs`: recordings (`.bpr`) and folders of GoPro CSV exports (each `*-gps.csv` is one
    /// ride, with its `-accl.csv`/`-gyro.csv` when present, as the importer takes a prefix).
    static func run(inputs: [String]) throws {
        var rides: [(name: String, records: [SensorRecord])] = []
        for input in inputs {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isDirectory) else {
                throw ImportError(path: input, message: "no such file or folder")
            }
            if isDirectory.boolValue {
                let prefixes = try FileManager.default.contentsOfDirectory(atPath: input).filter { $0.hasSuffix("-gps.csv") }.sorted()
                    .map { String($0.dropLast("-gps.csv".count)) }
                for name in prefixes {
                    let (recording, _) = try GoProCSVImporter.load(GoProCSVImporter.Files(prefix: input + "/" + name))
                    rides.append((name, recording.records))
                }
            } else {
                rides.append(((input as NSString).lastPathComponent, try ObstacleBenchmark.read(input)))
            }
        }
        var rows: [Row] = []
        print("ride                          start(s)  end(s)  positions(m)  vs Doppler  now(m)  vs Doppler  Doppler(m)")
        for ride in rides {
            var positionsOnly = PipelineConfiguration()
            positionsOnly.dopplerDistanceMaxGapSeconds = -1  // every step between positions: the chain before the Doppler integration
            let before = trips(ride.records, configuration: positionsOnly)
            let after = trips(ride.records, configuration: PipelineConfiguration())
            let speeds = groundSpeeds(ride.records)
            for (a, b) in zip(before, after) {
                let doppler = integral(speeds, from: b.startTime, to: b.endTime)
                let row = Row(
                    ride: ride.name, start: b.startTime.seconds, end: b.endTime.seconds,
                    positions: a.statistics.distanceMeters, now: b.statistics.distanceMeters, doppler: doppler)
                rows.append(row)
                print(
                    String(
                        format: "%-28@ %8.1f %7.1f %11.0f %+10.1f %% %7.0f %+9.1f %% %10.0f", row.ride, row.start, row.end,
                        row.positions, percent(row.positions, row.doppler), row.now, percent(row.now, row.doppler), row.doppler))
            }
        }
        guard !rows.isEmpty else { print("no trips"); return }
        func summary(_ values: [Double]) -> String {
            let s = values.sorted()
            let median = s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
            return String(format: "%+.1f … %+.1f %% (median %+.1f %%)", s.first!, s.last!, median)
        }
        print("trips: \(rows.count)")
        print("positions vs Doppler: " + summary(rows.map { percent($0.positions, $0.doppler) }))
        print("now vs Doppler:       " + summary(rows.map { percent($0.now, $0.doppler) }))
        let within = rows.filter { abs(percent($0.now, $0.doppler)) <= 2 }.count
        print("within ±2 %: \(within) of \(rows.count)")
    }

    static func percent(_ x: Double, _ reference: Double) -> Double { reference > 0 ? 100 * (x - reference) / reference : 0 }

    static func trips(_ records: [SensorRecord], configuration: PipelineConfiguration) -> [TripRecord] {
        var pipeline = Pipeline(configuration: configuration)
        var out: [ChainOutput] = []
        var i = 0
        while i < records.count {
            out += pipeline.process(records[i..<min(i + 256, records.count)])
            i += 256
        }
        out += pipeline.finish()
        return out.compactMap { if case .tripEnded(let t) = $0 { t } else { nil } }
    }

    /// Every fix the receiver reported a position and a speed for, decoded from the ride's
    /// NMEA as the chain decodes it (no cleaning, no smoothing): (receive time, m/s).
    static func groundSpeeds(_ records: [SensorRecord]) -> [(time: SampleTime, speed: Double)] {
        var decoder = NMEADecoder()
        var out: [(time: SampleTime, speed: Double)] = []
        func take(_ fixes: [GNSSFix]) {
            for f in fixes where f.mode >= .twoD { if let v = f.speed, v.isFinite { out.append((f.receivedAt, v)) } }
        }
        for case .nmea(let t, let sentence) in records { take(decoder.decode(sentence: sentence, receivedAt: t)) }
        take(decoder.finish())
        return out
    }

    /// The reference: each reported speed held until the next report (at most 1 s, so a
    /// gap in the reports adds nothing it did not see), over the trip's span. The same
    /// definition as the AllTheDocks table (Tests/BikePathCoreTests/Support/AllTheDocksCSV).
    static func integral(_ speeds: [(time: SampleTime, speed: Double)], from start: SampleTime, to end: SampleTime) -> Double {
        let span = speeds.filter { $0.time >= start && $0.time <= end }
        var sum = 0.0
        for (a, b) in zip(span, span.dropFirst()) { sum += a.speed * max(0, min(b.time.seconds - a.time.seconds, 1)) }
        return sum
    }
}
