import ArgumentParser
import BikePathDaemon
import BikePathCore
import Foundation

/// `bikepathd detect`: the obstacle detector on one column of vertical acceleration.
/// stdout carries only the events, one JSON object per line; errors go to stderr.
struct DetectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "detect",
        abstract: "Detect obstacles in a vertical-acceleration series (m/s², speed unknown)."
    )

    @Option(name: .customLong("accel-z-csv"), help: "File with one value per line, optional header line `acc_z`.")
    var file: String

    @Option(help: "Sample rate, Hz.")
    var rate: Double

    func validate() throws {
        guard rate.isFinite, rate > 0 else { throw ValidationError("--rate must be a positive number of Hz") }
    }

    func run() throws {
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw DetectError(description: "cannot read \(file): \(error.localizedDescription)")
        }
        let series: [Float]
        do {
            series = try AccelZSeries.parse(text)
        } catch {
            throw DetectError(description: "\(file): \(error)")
        }
        // The same obstacle line as `replay --json` (docs/json.md).
        for event in ObstacleDetector.detect(verticalAcceleration: series, rate: rate) {
            print(ChainOutputJSON.line(.obstacle(event)))
        }
    }
}

struct DetectError: Error, CustomStringConvertible {
    var description: String
}
