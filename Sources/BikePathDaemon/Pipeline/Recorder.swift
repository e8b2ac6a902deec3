import BikePathCore
import BikePathSensors
import Foundation
import Synchronization

/// The recording thread: the same ordered stream goes to the file and the chain.
///
/// Unchecked Sendable: the chain, writer and counters are confined to the recording
/// thread (the counters are read after it ends); other threads touch only `requestStop`
/// (an Atomic), `marks` (its own Mutex) and `status` (constants).
public final class Recorder: @unchecked Sendable {
    private let writer: RecordingWriter
    private let outputs: FileHandle?
    private var pipeline: Pipeline
    private let stopRequested = Atomic(false)
    public private(set) var records = 0, nmea = 0, imu = 0, outputCount = 0
    /// `--mark-socket`: the rider's marks, written as labels at the current sample time.
    public let marks = RiderMarks()
    private var lastTime: SampleTime?
    private var labelClock = LabelClock()
    private let startedAt = EdgeClock.monotonic()

    private let version: String

    /// `outputs`: the chain's outputs as JSON lines (`record --outputs`); `version` for `status`.
    public init(writer: RecordingWriter, outputs: FileHandle?, crashDetection: Bool, version: String) {
        self.writer = writer
        self.version = version
        self.outputs = outputs
        var configuration = PipelineConfiguration()
        configuration.crashDetectionEnabled = crashDetection
        pipeline = Pipeline(configuration: configuration)
    }

    /// Asks `run` to stop; safe from any thread.
    public func requestStop() { stopRequested.store(true, ordering: .releasing) }
    private var stopping: Bool { stopRequested.load(ordering: .acquiring) }

    /// Records until `requestStop`, then writes what the sources still held and
    /// closes the file (and the outputs file). Runs on its own thread: it blocks on the sources.
    /// - Throws: `RecordingFileError` or a file error; what was written before stays.
    public func run(_ sources: LiveSources) throws {
        var lastFlush = EdgeClock.monotonic()
        try PipelineDriver(source: sources).drive(shouldStop: { stopping }) { records in
            take(records)
            labelMarks()
            try append()
            if EdgeClock.monotonic() - lastFlush >= 1 {
                try writer.flush()  // fsync about once a second: a power cut loses at most that
                lastFlush = EdgeClock.monotonic()
            }
        }
        write(pipeline.finish())
        try writer.close()
        try outputs?.synchronize()
        try outputs?.close()
    }

    private var batch: [SensorRecord] = []

    private func take(_ records: [SensorRecord]) {
        batch += records
        if let last = records.last { lastTime = last.time }
    }

    /// A recording is for labelling: a mark is taken in or out of a trip, answered at once
    /// with the last fix (the chain places it at the next one, on replay as live).
    private func labelMarks() {
        for request in marks.take() {
            guard let now = lastTime else {
                request.reply(.failure("nothing recorded yet: no sample time to put the mark at"))
                continue
            }
            let time = labelClock.time(at: now)
            batch.append(.label(time, request.kind))
            let fix = pipeline.status.lastFix
            request.reply(
                MarkReply(
                    kind: request.kind.rawValue, timeS: time.seconds, lat: fix?.latitude,
                    lon: fix?.longitude, speedMps: fix?.speed))
        }
    }

    /// What `bikepathd status --status-socket` shows while recording with `--mark-socket`.
    public var status: DaemonStatus {
        DaemonStatus(
            version: version, pid: getpid(), uptimeS: EdgeClock.monotonic() - startedAt,
            trip: .init(state: "recording"), gnss: .init(connected: true), imu: .init(connected: true),
            store: .init(path: "", queueLength: 0), sync: .init(enabled: false))
    }

    private func append() throws {
        guard !batch.isEmpty else { return }
        for r in batch {
            switch r {
            case .nmea: nmea += 1
            case .imu: imu += 1
            case .marker, .label: break
            }
        }
        records += batch.count
        try writer.append(contentsOf: batch)
        write(pipeline.process(batch))
        batch.removeAll(keepingCapacity: true)
    }

    private func write(_ out: [ChainOutput]) {
        outputCount += out.count
        guard let outputs, !out.isEmpty else { return }
        let text = out.map(ChainOutputJSON.line).joined(separator: "\n") + "\n"
        outputs.write(Data(text.utf8))
    }
}
