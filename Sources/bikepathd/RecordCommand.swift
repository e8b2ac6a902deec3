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
        let recorder = Recorder(writer: writer, outputs: outputsFile, crashDetection: crashDetection,
                                version: BikePathCommand.configuration.version)
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
        standardErrorLine("recording to \(output); SIGINT or SIGTERM stops")
        let stopper = Task {
            if let seconds {
                // Cancelled only when recording failed first: the stop request is then moot.
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
            standardErrorLine("error: \(failure)")
            throw ExitCode(1)
        }
        let g = sources.gnss.status, i = sources.imu.status
        standardErrorLine("""
            recorded \(recorder.records) records (\(recorder.nmea) NMEA sentences, \(recorder.imu) IMU samples), \
            \(writer.bytesWritten) bytes; chain outputs \(recorder.outputCount); \
            gpsd drops \(g.deliveryDrops), IMU overruns \(i.overruns)
            """)
        if recorder.records == 0 {
            standardErrorLine("error: nothing was recorded: neither gpsd (\(gpsd.host):\(gpsd.port)) nor the IMU (\(iio.uri)) delivered data — `bikepathd diagnose` says why")
            throw ExitCode(3)
        }
    }
}
