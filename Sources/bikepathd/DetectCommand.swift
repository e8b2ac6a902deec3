import ArgumentParser
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
        for event in ObstacleDetector.detect(verticalAcceleration: series, rate: rate) {
            let severity = (event.peak * 1000).rounded() / 1000
            print("{\"t\":\(event.time.seconds),\"type\":\"\(event.kind.rawValue)\",\"severity\":\(severity)}")
        }
    }
}

struct DetectError: Error, CustomStringConvertible {
    var description: String
}
