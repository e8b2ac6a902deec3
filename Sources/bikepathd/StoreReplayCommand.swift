import ArgumentParser
import BikePathStore
import Foundation

/// Hidden: writes a synthetic stream of chain outputs into the store through
/// `StoreWriter`, resuming after the last committed position. The kill test
/// `kill -9`s it again and again; bench/store.sh times it.
struct StoreReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-replay", abstract: "Replay a synthetic ride into the store (tests, benchmark).", shouldDisplay: false)
    @Option(name: .customLong("db")) var databasePath: String
    @Option var trips = 3
    @Option(name: .customLong("seconds-per-trip")) var secondsPerTrip = 600
    @Option(name: .customLong("batch-rows")) var batchRows = 500

    func run() throws {
        let store = try Store.open(path: databasePath)
        // The ride goes on: the open trip is resumed, the writer continues it.
        try store.resumeOpenTrip()
        var policy = WriterPolicy()
        policy.maxBatchRows = batchRows
        let writer = try StoreWriter(store: store, policy: policy)
        let stream = SyntheticRides.stream(trips: trips, secondsPerTrip: secondsPerTrip)
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
