import Foundation
@testable import BikePathCore

/// Where the shared public datasets live: `$BIKEPATH_DATASETS`, else `../shared/datasets`
/// beside the checkout (CI provides it there; see docs/evaluation.md).
enum TestData {
    static var datasetsRoot: String {
        if let env = ProcessInfo.processInfo.environment["BIKEPATH_DATASETS"] { return env }
        let repo = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared/datasets").path
    }

    static var allTheDocks: String { datasetsRoot + "/allthedocks" }
    static var hasAllTheDocks: Bool { FileManager.default.fileExists(atPath: allTheDocks + "/GX010056-gps.csv") }

    static func fixture(_ path: String) -> URL {
        Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent(path)
    }
}

/// What a test feeds the chain: fixes are given decoded (the NMEA decoder is tested on
/// its own), IMU samples and markers as records.
enum ChainInput {
    case fix(GNSSFix)
    case record(SensorRecord)

    var time: SampleTime {
        switch self {
        case .fix(let f): f.receivedAt
        case .record(let r): r.time
        }
    }
}

/// Replays inputs in time order, handing runs of records to the pipeline in batches of
/// at most `batchSize` (fixes end a batch, as a live source would deliver them).
func replay(
    _ inputs: [ChainInput], configuration: PipelineConfiguration = .init(), batchSize: Int = 1000,
    afterEach: ((Pipeline) -> Void)? = nil
) -> [ChainOutput] {
    var pipeline = Pipeline(configuration: configuration)
    var out: [ChainOutput] = []
    var batch: [SensorRecord] = []
    func flush() {
        if !batch.isEmpty { out += pipeline.process(batch); batch.removeAll(keepingCapacity: true); afterEach?(pipeline) }
    }
    for input in inputs {
        switch input {
        case .fix(let f):
            flush()
            out += pipeline.process(fix: f)
            afterEach?(pipeline)
        case .record(let r):
            batch.append(r)
            if batch.count >= batchSize { flush() }
        }
    }
    flush()
    out += pipeline.finish()
    return out
}

/// Merges fixes and records by time (stable: fixes first on ties).
func merge(fixes: [GNSSFix], records: [SensorRecord]) -> [ChainInput] {
    var out: [ChainInput] = []
    out.reserveCapacity(fixes.count + records.count)
    var i = 0, j = 0
    while i < fixes.count || j < records.count {
        if j == records.count || (i < fixes.count && fixes[i].receivedAt <= records[j].time) {
            out.append(.fix(fixes[i])); i += 1
        } else {
            out.append(.record(records[j])); j += 1
        }
    }
    return out
}

extension [ChainOutput] {
    var trips: [TripRecord] { compactMap { if case .tripEnded(let t) = $0 { t } else { nil } } }
    var obstacles: [ObstacleEvent] { compactMap { if case .obstacle(let o) = $0 { o } else { nil } } }
    var sos: [SOSEvent] { compactMap { if case .sos(let s) = $0 { s } else { nil } } }
    var segments: [RoadQualitySegment] { compactMap { if case .roadQuality(let s) = $0 { s } else { nil } } }
    var tripStarts: [SampleTime] { compactMap { if case .tripStarted(let t, _) = $0 { t } else { nil } } }
}
