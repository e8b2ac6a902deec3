import BikePathFixtures
import BikePathStore
import Foundation

/// `BikePathBench store-replay --db PATH [--trips N] [--seconds-per-trip S] [--batch-rows R]`:
/// writes a synthetic stream of chain outputs into the store through
/// `StoreWriter`, resuming after the last committed position. The kill test
/// `kill -9`s it again and again; bench/sync.sh and the store tests fill stores with it.
enum StoreReplay {
    static func run(_ options: BenchOptions) throws {
        let store = try Store.open(path: try options.required("db"))
        // The ride goes on: the open trip is resumed, the writer continues it.
        try store.resumeOpenTrip()
        var policy = WriterPolicy()
        policy.maxBatchRows = try options.int("batch-rows", default: 500)
        let writer = try StoreWriter(store: store, policy: policy)
        let stream = SyntheticRides.stream(
            trips: try options.int("trips", default: 3),
            secondsPerTrip: try options.int("seconds-per-trip", default: 600))
        let first = writer.committedPosition.map { Int($0) + 1 } ?? 0
        // The kill test waits for this line so that its kills land while writing.
        FileHandle.standardOutput.write(Data("resuming at \(first) of \(stream.count)\n".utf8))
        let started = DispatchTime.now().uptimeNanoseconds
        for index in first..<stream.count {
            try writer.append(stream[index].output, at: stream[index].now, position: Int64(index))
        }
        try writer.flush()
        try store.checkpoint()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        print("replayed \(stream.count - first) of \(stream.count) outputs in \(String(format: "%.3f", seconds)) s")
    }
}
