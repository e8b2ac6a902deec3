import BikePathCore
import BikePathSensors
import BikePathStore
import Foundation

/// A recording through the chain in batches, as the daemon runs it (`replay`, `evaluate`).
public struct RecordingChain {
    public var pipeline: Pipeline
    public let batch: Int

    /// Creates a chain fed `batch` records at a time (4096).
    public init(configuration: PipelineConfiguration, batch: Int = 4096) {
        pipeline = Pipeline(configuration: configuration)
        self.batch = batch
    }

    /// Feeds every record through the `PipelineDriver`; `first` sees the first
    /// record's time before any output, `emit` each batch's outputs, then the
    /// chain's last ones. Returns the record count.
    /// - Throws: the `RecordingFileError` that ended the reading early (what was
    ///   read before it has been emitted).
    public mutating func run(
        _ reader: RecordingReader, first: (SampleTime) -> Void = { _ in },
        emit: ([ChainOutput]) -> Void
    ) throws -> Int {
        let source = RecordingReaderSource(reader: reader, batch: batch)
        var records = 0
        try PipelineDriver(source: source).drive(shouldStop: { false }, inputFinished: { source.finished }) { batch in
            if records == 0, let head = batch.first { first(head.time) }
            records += batch.count
            if !batch.isEmpty { emit(pipeline.process(batch)) }
        }
        if let failure = source.failure { throw failure }
        emit(pipeline.finish())
        return records
    }

    /// The sensitivity calibrated in the store at `path` (`--db`), or the factory one.
    public static func sensitivity(fromStore path: String?) throws -> DetectorSensitivity {
        guard let path else { return .factory }
        guard FileManager.default.fileExists(atPath: path) else {
            throw ImportError(path: path, message: "no store here to take the calibration from")
        }
        let store = try Store.open(path: path)
        defer { try? store.close() }  // only read: closing cannot lose anything
        return try store.detectorSensitivity()
    }
}
