import ArgumentParser
import BikePathCLI
import BikePathDaemon

/// `bikepathd detect`: the obstacle detector on one column of vertical acceleration.
/// stdout carries only the events, one JSON object per line; errors go to stderr.
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect obstacles in a vertical-acceleration series (m/s², speed unknown)."
    )

    @Option(name: .customLong("accel-z-csv"), help: "File with one value per line, optional header line `acc_z`.") var file: String
    @Option(help: "Sample rate, Hz.") var rate: Double

    func validate() throws {
        guard rate.isFinite, rate > 0 else { throw ValidationError("--rate must be a positive number of Hz") }
    }

    func run() throws {
        for line in try SeriesDetection.lines(file: file, rate: rate) { print(line) }
    }
}
