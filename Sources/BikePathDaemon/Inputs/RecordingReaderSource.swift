import BikePathCore
import BikePathSensors

/// An open recording as a `SensorSource`, `batch` records per read, for the
/// synchronous passes over a file (`replay`, `evaluate`): no thread, no waiting,
/// no progress bar (`ReplaySource` adds those for `run --replay`). A read error
/// ends the input and is kept in `failure`.
///
/// Unchecked Sendable: confined to the thread of the pass that reads it (`stop` comes
/// from that thread too, through `PipelineDriver`); Sendable only to be handed to it.
public final class RecordingReaderSource: SensorSource, @unchecked Sendable {
    public let reader: RecordingReader
    public let batch: Int
    public private(set) var finished = false
    public private(set) var failure: RecordingFileError?

    public init(reader: RecordingReader, batch: Int = 4096) {
        self.reader = reader
        self.batch = max(1, batch)
    }

    public func start() {}
    public func stop() { finished = true }
    public var degradedReason: String? { nil }

    public func next(timeoutSeconds _: Double) -> [SensorRecord] {
        var out: [SensorRecord] = []
        out.reserveCapacity(batch)
        while !finished, out.count < batch {
            do throws(RecordingFileError) {
                guard let record = try reader.next() else { finished = true; break }
                out.append(record)
            } catch {
                failure = error
                finished = true
            }
        }
        return out
    }
}
