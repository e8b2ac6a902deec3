import ArgumentParser
import BikePathCore
import BikePathDaemon
import BikePathSensors
import Foundation
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// `bikepathd record OUT`: writes a recording from the live sensors (gpsd's raw
/// NMEA and the IIO batches, merged into receive-time order) until SIGINT or
/// SIGTERM, and runs the chain on the same stream as it goes. With `--outputs`
/// the chain's outputs are written as JSON lines, in the form `replay --json`
/// prints, so a replay of the recording can be compared with the live run.
struct RecordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record the live sensors to a recording file (SIGINT/SIGTERM to stop).",
        discussion: "Exit codes: 0 something was recorded; 1 an error; 3 no sensor delivered anything (the file holds only its header).")

    @Argument(help: ArgumentHelp("Recording to write (.bpr).", valueName: "out")) var output: String
    @OptionGroup var sensors: SensorOptions
    @Option(help: ArgumentHelp("Write the chain's outputs here as JSON lines (as `replay --json`).", valueName: "file"))
    var outputs: String?
    @Option(help: "Stop after this many seconds (default: until SIGINT/SIGTERM).") var seconds: Double?
    @Flag(help: "Replace OUT if it exists.") var force = false
    /// The old spelling, kept working for scripts.
    @Flag(name: .customLong("overwrite"), help: .hidden) var overwriteAlias = false
    @Flag(help: "Enable crash (SOS) detection in the live chain, as `replay --crash-detection`.") var crashDetection = false
    @Option(help: ArgumentHelp("Take `bikepathd mark --socket PATH` here: each mark is written as a rider label (for `evaluate`).",
                               valueName: "path"))
    var markSocket: String?

    func run() async throws {
        let signals = SignalEvents.stream([SIGTERM, SIGINT])
        var logger = Logger(label: "bikepath.record")
        logger.logLevel = .warning
        let gpsd = sensors.gpsd, iio = sensors.iio
        let header = RecordingHeader(
            createdUTC: UTCTime(nanosecondsSince1970: EdgeClock.realtimeNanoseconds()),
            createdAtMonotonic: EdgeClock.monotonic(), source: "live",
            sourceDetail: "gpsd \(gpsd.host):\(gpsd.port), iio \(iio.uri)",
            writer: "bikepathd record \(BikePathCommand.configuration.version)",
            sensors: [.init(id: "gnss", kind: "gnss", name: "gpsd", unit: "nmea0183"),
                      .init(id: "imu", kind: "imu", name: iio.deviceName ?? "iio", rateHz: iio.samplingFrequency, unit: "si")])
        let writer: RecordingWriter
        do {
            writer = try RecordingWriter(path: output, header: header, overwrite: force || overwriteAlias, syncPolicy: .everyFlush)
        } catch {
            throw ValidationError("\(error)")
        }
        var outputsFile: FileHandle?
        if let outputs {
            guard FileManager.default.createFile(atPath: outputs, contents: nil), let h = FileHandle(forWritingAtPath: outputs) else {
                throw ValidationError("cannot create \(outputs)")
            }
            outputsFile = h
        }
        let sources = LiveSources(gnss: gpsd, imu: iio, logger: logger)
        let recorder = Recorder(writer: writer, outputs: outputsFile, crashDetection: crashDetection)
        var markServer: StatusServer?
        if let markSocket {
            do {
                markServer = try StatusServer(path: markSocket, status: { recorder.status }, mark: { [marks = recorder.marks] kind, reply in
                    marks.submit(kind, reply: reply)
                })
            } catch {
                throw ValidationError("--mark-socket \(markSocket): \(error)")
            }
        }
        defer { markServer?.stop() }
        try sources.start()
        let (done, continuation) = AsyncStream.makeStream(of: String?.self)
        let thread = Thread {
            do {
                try recorder.run(sources)
                continuation.yield(nil)
            } catch {
                continuation.yield("\(error)")
            }
        }
        thread.name = "record"
        thread.start()
        ImportCommand.stderrLine("recording to \(output); SIGINT or SIGTERM stops")
        let stopper = Task {
            if let seconds {
                try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            } else {
                var iterator = signals.makeAsyncIterator()
                _ = await iterator.next()
            }
            recorder.requestStop()
        }
        var iterator = done.makeAsyncIterator()
        let failure = await iterator.next() ?? nil
        stopper.cancel()
        if let failure {
            ImportCommand.stderrLine("error: \(failure)")
            throw ExitCode(1)
        }
        let g = sources.gnss.status, i = sources.imu.status
        ImportCommand.stderrLine("""
            recorded \(recorder.records) records (\(recorder.nmea) NMEA sentences, \(recorder.imu) IMU samples), \
            \(writer.bytesWritten) bytes; chain outputs \(recorder.outputCount); \
            gpsd drops \(g.deliveryDrops), IMU overruns \(i.overruns)
            """)
        if recorder.records == 0 {
            ImportCommand.stderrLine("error: nothing was recorded: neither gpsd (\(gpsd.host):\(gpsd.port)) nor the IMU (\(iio.uri)) delivered data — `bikepathd diagnose` says why")
            throw ExitCode(3)
        }
    }
}

/// The recording thread: the same ordered stream goes to the file and the chain.
final class Recorder: @unchecked Sendable {
    private let writer: RecordingWriter
    private let outputs: FileHandle?
    private var pipeline: Pipeline
    private let stop = NSLock()
    private var stopRequested = false
    private(set) var records = 0, nmea = 0, imu = 0, outputCount = 0
    /// `--mark-socket`: the rider's marks, written as labels at the current sample time.
    let marks = RiderMarks()
    private var lastTime: SampleTime?
    private var labelClock = LabelClock()
    private let startedAt = EdgeClock.monotonic()

    init(writer: RecordingWriter, outputs: FileHandle?, crashDetection: Bool) {
        self.writer = writer
        self.outputs = outputs
        var configuration = PipelineConfiguration()
        configuration.crashDetectionEnabled = crashDetection
        pipeline = Pipeline(configuration: configuration)
    }

    func requestStop() { stop.lock(); stopRequested = true; stop.unlock() }
    private var stopping: Bool { stop.lock(); defer { stop.unlock() }; return stopRequested }

    func run(_ sources: LiveSources) throws {
        var lastFlush = EdgeClock.monotonic()
        while !stopping {
            take(sources.next(timeoutSeconds: 0.25))
            labelMarks()
            try append(sources: nil)
            if EdgeClock.monotonic() - lastFlush >= 1 {
                try writer.flush()   // fsync about once a second: a power cut loses at most that
                lastFlush = EdgeClock.monotonic()
            }
        }
        sources.stop()   // releases everything still held, in order
        while true {
            let rest = sources.next(timeoutSeconds: 0)
            if rest.isEmpty { break }
            take(rest)
        }
        try append(sources: nil)
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
            request.reply(MarkReply(kind: request.kind.rawValue, timeS: time.seconds, lat: fix?.latitude,
                                    lon: fix?.longitude, speedMps: fix?.speed))
        }
    }

    /// What `bikepathd status --socket` shows while recording with `--mark-socket`.
    var status: DaemonStatus {
        DaemonStatus(version: BikePathCommand.configuration.version, pid: getpid(), uptimeS: EdgeClock.monotonic() - startedAt,
                     trip: .init(state: "recording"), gnss: .init(connected: true), imu: .init(connected: true),
                     store: .init(path: "", queueLength: 0), sync: .init(enabled: false))
    }

    private func append(sources _: LiveSources?) throws {
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
