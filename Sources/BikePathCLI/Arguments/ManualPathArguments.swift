import BikePathAPI
import BikePathCore
import Foundation

/// What the rider typed after `path add` (docs/cli.md): the streets in order, the two ends as
/// `LAT,LON` in degrees and the status, turned into the hub's body and checked as the hub
/// checks its fields and street count (`Validation.problemsBeforeSending`, one rule for both).
public struct ManualPathArguments: Sendable {
    public var streets: [String]
    public var start: String
    public var end: String
    public var status: PathStatus

    public init(streets: [String], start: String, end: String, status: PathStatus) {
        (self.streets, self.start, self.end, self.status) = (streets, start, end, status)
    }

    /// The body sync sends for this path.
    /// - Throws: `ManualPathArgumentError` naming what is wrong.
    public func upload() throws(ManualPathArgumentError) -> ManualPathUpload {
        let path = ManualPathUpload(
            streets: streets.map { $0.trimmingCharacters(in: .whitespaces) },
            start: try Self.position(start, option: "--start"), end: try Self.position(end, option: "--end"),
            status: status.rawValue)
        let problems = Validation.problemsBeforeSending(path)
        guard problems.isEmpty else { throw .invalid(problems) }
        return path
    }

    /// `LAT,LON` as two numbers; their range is `Validation`'s to check.
    private static func position(_ text: String, option: String) throws(ManualPathArgumentError) -> WirePosition {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingCharacters(in: .whitespaces))
        }
        guard parts.count == 2, let lat = parts[0], let lon = parts[1] else { throw .position(option: option, text) }
        return WirePosition(lat: lat, lon: lon)
    }
}

/// A path the rider typed that is not one (the CLI shows it as a usage error, exit 64).
public enum ManualPathArgumentError: CommandArgumentError, Equatable {
    /// Not `LAT,LON`.
    case position(option: String, String)
    /// Fields the hub would refuse, each "field: why".
    case invalid([String])

    public var description: String {
        switch self {
        case .position(let option, let text): "\(option) wants LAT,LON in degrees (51.519,-0.097); got '\(text)'"
        case .invalid(let problems): "not a path the hub can take: \(problems.joined(separator: "; "))"
        }
    }
}
