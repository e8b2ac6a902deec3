import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

/// `BikePathBench store-bench --db PATH --csv-dir DIR [--points N] [--events N]
/// [--batch-rows R] [--spacing-us U]`: the writer half of bench/store.sh. Writes
/// track points, then obstacle events, through `StoreWriter` (WAL,
/// synchronous=FULL, batches of `--batch-rows`), times each phase, then dumps the
/// very same rows as CSV for the `sqlite3` CLI `.import` half of the benchmark.
enum StoreBench {
    static func run(_ options: BenchOptions) throws {
        let databasePath = try options.required("db"), csvDirectory = try options.required("csv-dir")
        let points = try options.int("points", default: 100_000), events = try options.int("events", default: 5_000)
        let spacingMicroseconds = try options.double("spacing-us", default: 10)
        let store = try Store.open(path: databasePath)
        var policy = WriterPolicy()
        if let batchRows = options.string("batch-rows") {
            guard let rows = Int(batchRows) else { throw BenchUsageError.notANumber("batch-rows", batchRows) }
            policy.maxBatchRows = rows
        }
        policy.minPointDistanceMeters = 0  // every row is stored: we measure the store, not the downsampler
        policy.minPointSeconds = 0
        let writer = try StoreWriter(store: store, policy: policy)
        // Catch-up cadence (replaying a backlog): rows 10 µs apart in sample time,
        // so batches fill by row count before a second of sample time passes.
        var t = SampleTime(seconds: 100)
        try writer.append(.tripStarted(t, nil), at: t)
        try writer.flush()

        let pointsStart = DispatchTime.now().uptimeNanoseconds
        let pointsCPUStart = ResourceUsage.cpuSeconds()
        for i in 0..<points {
            t = t + spacingMicroseconds * 1e-6
            let c = Coordinate(latitude: 52.52 + Double(i) * 1e-7, longitude: 13.40 + Double(i) * 1e-7)
            try writer.append(
                .trackPoint(
                    TrackPoint(
                        time: t, utc: UTCTime(nanosecondsSince1970: 1_790_000_000_000_000_000 + t.nanoseconds),
                        coordinate: c, altitudeMSL: 34.5, speed: 5.2)), at: t)
        }
        try writer.flush()
        let pointsSeconds = Double(DispatchTime.now().uptimeNanoseconds - pointsStart) / 1e9
        let pointsCPU = ResourceUsage.cpuSeconds() - pointsCPUStart

        let window = (0..<200).map { Float(sin(Double($0) * 0.3)) * 4 }
        let eventsStart = DispatchTime.now().uptimeNanoseconds
        let eventsCPUStart = ResourceUsage.cpuSeconds()
        for i in 0..<events {
            t = t + spacingMicroseconds * 1e-6
            try writer.append(
                .obstacle(
                    ObstacleEvent(
                        time: t, coordinate: Coordinate(latitude: 52.5, longitude: 13.4 + Double(i) * 1e-6),
                        speed: 5, kind: .pothole, peak: 7.5, energy: 2, window: window, windowRate: 100)), at: t)
        }
        try writer.flush()
        let eventsSeconds = Double(DispatchTime.now().uptimeNanoseconds - eventsStart) / 1e9
        let eventsCPU = ResourceUsage.cpuSeconds() - eventsCPUStart

        try store.close()
        let (pointRows, eventRows) = try StoreCSVDump.write(database: databasePath, directory: csvDirectory)
        print("writer_points \(pointRows) \(String(format: "%.4f %.4f", pointsSeconds, pointsCPU))")
        print("writer_events \(eventRows) \(String(format: "%.4f %.4f", eventsSeconds, eventsCPU))")
    }
}
