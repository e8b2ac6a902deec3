import BikePathCore
import BikePathSensors
import Foundation
import Logging
#if canImport(Glibc)
    import Glibc
#endif

/// `bikepathd record OUT`: the live sensors (gpsd's raw NMEA and the IIO batches,
/// merged into receive-time order) written to a recording until a stop, with the
/// chain run on the same stream (`Recorder`) and, with `markSocket`, the rider's
/// marks taken as labels.
public struct LiveRecording: Sendable {
    public var output: String
    public var gnss: GPSDConfiguration
    public var imu: IIOConfiguration
    /// The chain's outputs as JSON lines (as `replay --json` prints them).
    public var outputsPath: String?
    public var overwrite = false
    public var crashDetection = false
    public var markSocket: String?
    public var version: String

    public init(
        output: String, gnss: GPSDConfiguration, imu: IIOConfiguration, version: String, outputsPath: String? = nil,
        overwrite: Bool = false, crashDetection: Bool = false, markSocket: String? = nil
    ) {
        self.output = output
        self.gnss = gnss
        self.imu = imu
        self.version = version
        self.outputsPath = outputsPath
        self.overwrite = overwrite
        self.crashDetection = crashDetection
        self.markSocket = markSocket
    }

    /// What was recorded, for the closing line.
    public struct Summary: Sendable {
        public var records, nmea, imuSamples, outputs: Int
        public var bytes: Int
        public var gpsdDrops, imuOverruns: Int

        public var text: String {
            "recorded \(records) records (\(nmea) NMEA sentences, \(imuSamples) IMU samples), \(bytes) bytes; "
                + "chain outputs \(outputs); gpsd drops \(gpsdDrops), IMU overruns \(imuOverruns)"
        }
    }

    /// Records until `stop` returns (a signal or a time limit), then drains the sources and closes the file.
    /// - Throws: `LiveRecordingError`; what was written before a failure stays in the file.
    public func run(started: () -> Void = {}, until stop: @escaping @Sendable () async -> Void) async throws(LiveRecordingError) -> Summary
    {
        var logger = Logger(label: "bikepath.record")
        logger.logLevel = .warning
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: output, header: header, overwrite: overwrite, syncPolicy: .everyFlush)
        } catch { throw .cannotStart("\(error)") }
        var outputsFile: FileHandle?
        if let outputsPath {
            guard FileManager.default.createFile(atPath: outputsPath, contents: nil), let h = FileHandle(forWritingAtPath: outputsPath)
            else { throw .cannotStart("cannot create \(outputsPath)") }
            outputsFile = h
        }
        let sources = LiveSources(gnss: gnss, imu: imu, logger: logger)
        let recorder = Recorder(writer: writer, outputs: outputsFile, crashDetection: crashDetection, version: version)
        var markServer: StatusServer?
        if let markSocket {
            do {
                markServer = try StatusServer(
                    path: markSocket, status: { recorder.status },
                    mark: { [marks = recorder.marks] kind, reply in
                        marks.submit(kind, reply: reply)
                    })
            } catch { throw .cannotStart("--mark-socket \(markSocket): \(error)") }
        }
        do { try sources.start() } catch {
            await markServer?.stop()
            throw .cannotStart("\(error)")
        }
        let failure = await Self.record(recorder, sources, started: started, until: stop)
        await markServer?.stop()
        if let failure { throw .failed(failure) }
        let summary = Summary(
            records: recorder.records, nmea: recorder.nmea, imuSamples: recorder.imu, outputs: recorder.outputCount,
            bytes: writer.bytesWritten, gpsdDrops: sources.gnss.status.deliveryDrops,
            imuOverruns: sources.imu.status.overruns)
        if summary.records == 0 { throw .nothingRecorded(summary, gnss: "\(gnss.host):\(gnss.port)", imu: imu.uri) }
        return summary
    }

    /// The recorder on its own thread (it blocks on the sources), stopped when `stop`
    /// returns; the failure's text, or nil.
    private static func record(
        _ recorder: Recorder, _ sources: LiveSources, started: () -> Void,
        until stop: @escaping @Sendable () async -> Void
    ) async -> String? {
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do throws(PipelineFailure) {
                    try await SampleLoopThread.run(named: "record") { try recorder.run(sources) }
                    return .ended(failure: nil)
                } catch {
                    return .ended(failure: "\(error)")
                }
            }
            started()
            group.addTask {
                await stop()
                // Cancelled only when recording failed first: the stop request is then moot.
                if !Task.isCancelled { recorder.requestStop() }
                return .stopRequested
            }
            while let outcome = await group.next() {
                if case .ended(let failure) = outcome {
                    group.cancelAll()
                    return failure
                }
            }
            return nil
        }
    }

    private enum Outcome: Sendable {
        case ended(failure: String?)
        case stopRequested
    }

    private var header: RecordingHeader {
        RecordingHeader(
            createdUTC: UTCTime(nanosecondsSince1970: EdgeClock.realtimeNanoseconds()),
            createdAtMonotonic: EdgeClock.monotonic(), source: "live",
            sourceDetail: "gpsd \(gnss.host):\(gnss.port), iio \(imu.uri)",
            writer: "bikepathd record \(version)",
            sensors: [
                .init(id: "gnss", kind: "gnss", name: "gpsd", unit: "nmea0183"),
                .init(id: "imu", kind: "imu", name: imu.deviceName ?? "iio", rateHz: imu.samplingFrequency, unit: "si"),
            ])
    }
}

/// Why `bikepathd record` ended without a usable recording.
public enum LiveRecordingError: Error, CustomStringConvertible {
    /// The file, the outputs file, the mark socket or a source could not be opened.
    case cannotStart(String)
    /// Writing failed midway; what was written before stays.
    case failed(String)
    /// Neither source delivered anything (the file holds only its header).
    case nothingRecorded(LiveRecording.Summary, gnss: String, imu: String)

    public var description: String {
        switch self {
        case .cannotStart(let why), .failed(let why): why
        case .nothingRecorded(_, let gnss, let imu):
            "nothing was recorded: neither gpsd (\(gnss)) nor the IMU (\(imu)) delivered data — `bikepathd diagnose` says why"
        }
    }
}
