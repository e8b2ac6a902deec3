import ArgumentParser
import BikePathCore
import BikePathStore
import Foundation

/// Hidden: the writer half of bench/store.sh. Writes track points, then
/// obstacle events, through `StoreWriter` (WAL, synchronous=FULL, batches of
/// `--batch-rows`), times each phase, then dumps the very same rows as CSV for
/// the `sqlite3` CLI `.import` half of the benchmark.
struct StoreBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-bench", abstract: "Store throughput benchmark (see bench/store.sh).", shouldDisplay: false)
    @Option(name: .customLong("db")) var databasePath: String
    @Option(name: .customLong("csv-dir")) var csvDirectory: String
    @Option var points = 100_000
    @Option var events = 5_000
    @Option(name: .customLong("batch-rows"), help: "Rows per commit (default: the writer's).") var batchRows: Int?
    @Option(name: .customLong("spacing-us"), help: "Sample time between rows, microseconds.") var spacingMicroseconds = 10.0

    func run() throws {
        let store = try Store.open(path: databasePath)
        var policy = WriterPolicy()
        if let batchRows { policy.maxBatchRows = batchRows }
        policy.minPointDistanceMeters = 0  // every row is stored: we measure the store, not the downsampler
        policy.minPointSeconds = 0
        let writer = try StoreWriter(store: store, policy: policy)
        // Catch-up cadence (replaying a backlog): rows 10 µs apart in sample time,
        // so batches fill by row count before a second of sample time passes.
        var t = SampleTime(seconds: 100)
        try writer.append(.tripStarted(t, nil), at: t)
        try writer.flush()

        let pointsStart = DispatchTime.now().uptimeNanoseconds
        let pointsCPUStart = cpuSeconds()
        for i in 0..<points {
            t = t + spacingMicroseconds * 1e-6
            let c = Coordinate(latitude: 52.52 + Double(i) * 1e-7, longitude: 13.40 + Double(i) * 1e-7)
            try writer.append(.trackPoint(TrackPoint(time: t, utc: UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + t.nanoseconds),
                                                     coordinate: c, altitudeMSL: 34.5, speed: 5.2)), at: t)
        }
        try writer.flush()
        let pointsSeconds = Double(DispatchTime.now().uptimeNanoseconds - pointsStart) / 1e9
        let pointsCPU = cpuSeconds() - pointsCPUStart

        let window = (0..<200).map { Float(sin(Double($0) * 0.3)) * 4 }
        let eventsStart = DispatchTime.now().uptimeNanoseconds
        let eventsCPUStart = cpuSeconds()
        for i in 0..<events {
            t = t + spacingMicroseconds * 1e-6
            try writer.append(.obstacle(ObstacleEvent(time: t, coordinate: Coordinate(latitude: 52.5, longitude: 13.4 + Double(i) * 1e-6),
                                                      speed: 5, kind: .pothole, peak: 7.5, energy: 2, window: window, windowRate: 100)), at: t)
        }
        try writer.flush()
        let eventsSeconds = Double(DispatchTime.now().uptimeNanoseconds - eventsStart) / 1e9
        let eventsCPU = cpuSeconds() - eventsCPUStart

        let (pointRows, eventRows) = try store.benchmarkDumpCSV(directory: csvDirectory)
        print("writer_points \(pointRows) \(String(format: "%.4f %.4f", pointsSeconds, pointsCPU))")
        print("writer_events \(eventRows) \(String(format: "%.4f %.4f", eventsSeconds, eventsCPU))")
    }
}

/// User + system CPU time of this process, seconds: the machine is shared, so
/// wall time alone says as much about the neighbours as about the store.
private func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}
