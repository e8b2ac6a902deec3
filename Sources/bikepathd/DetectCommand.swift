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
            throw AccelZCSV.ParseError(description: "cannot read \(file): \(error.localizedDescription)")
        }
        let series = try AccelZCSV.parse(text, name: file)
        for event in ObstacleDetector.detect(verticalAcceleration: series, rate: rate) {
            let severity = (event.peak * 1000).rounded() / 1000
            print("{\"t\":\(event.time.seconds),\"type\":\"\(event.kind.rawValue)\",\"severity\":\(severity)}")
        }
    }
}

/// The single-column format: optional header `acc_z`, then one number per line.
enum AccelZCSV {
    struct ParseError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ text: String, name: String) throws -> [Float] {
        var values: [Float] = []
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if lineNumber == 1 && line == "acc_z" { continue }
            guard let v = Float(line), v.isFinite else {
                throw ParseError(description: "\(name):\(lineNumber): not a number: \"\(line.prefix(40))\"")
            }
            values.append(v)
        }
        return values
    }
}
