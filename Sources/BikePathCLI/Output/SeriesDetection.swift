import BikePathCore
import BikePathDaemon
import Foundation

/// `bikepathd detect`: the bare-series obstacle detector (speed unknown) on a file
/// of vertical acceleration, one value per line; each event in the obstacle line
/// of `replay --json` (docs/json.md).
public enum SeriesDetection {
    /// - Throws: `SeriesDetectionError` for a file that cannot be read or a line that is not a number.
    public static func lines(file: String, rate: Double) throws(SeriesDetectionError) -> [String] {
        let text: String
        do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
            throw .cannotRead(file, error.localizedDescription)
        }
        let series: [Float]
        do { series = try AccelZSeries.parse(text) } catch { throw .notASeries(file, error) }
        return ObstacleDetector.detect(verticalAcceleration: series, rate: rate).map { ChainOutputJSON.line(.obstacle($0)) }
    }
}

/// Why `detect` read no series.
public enum SeriesDetectionError: Error, Equatable, CustomStringConvertible {
    case cannotRead(String, String)
    case notASeries(String, AccelZSeries.ParseError)

    public var description: String {
        switch self {
        case .cannotRead(let file, let why): "cannot read \(file): \(why)"
        case .notASeries(let file, let error): "\(file): \(error)"
        }
    }
}
