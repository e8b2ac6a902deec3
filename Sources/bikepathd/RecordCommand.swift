import ArgumentParser
import UnixSignals
import BikePathCLI
import BikePathDaemon
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
    @Option(
        help: ArgumentHelp(
            "Take `bikepathd mark --status-socket PATH` here: each mark is written as a rider label (for `evaluate`).",
            valueName: "path"))
    var markSocket: String?

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        let recording = LiveRecording(
            output: output, gnss: sensors.gpsd, imu: sensors.iio, version: BikePathCommand.configuration.version, outputsPath: outputs,
            overwrite: force || overwriteAlias, crashDetection: crashDetection, markSocket: markSocket)
        do throws(LiveRecordingError) {
            let summary = try await recording.run(started: { standardErrorLine("recording to \(output); SIGINT or SIGTERM stops") }) {
                [seconds] in
                if let seconds {
                    try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))  // cancelled: recording failed first
                } else {
                    var iterator = signals.makeAsyncIterator()
                    _ = await iterator.next()
                }
            }
            standardErrorLine(summary.text)
        } catch .cannotStart(let why) {
            throw ValidationError(why)
        } catch .failed(let why) {
            standardErrorLine("error: \(why)")
            throw ExitCode(1)
        } catch .nothingRecorded(let summary, let gnss, let imu) {
            standardErrorLine(summary.text)
            standardErrorLine("error: \(LiveRecordingError.nothingRecorded(summary, gnss: gnss, imu: imu))")
            throw ExitCode(3)
        }
    }
}
