import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

/// The calibration as `calibration show` and `diagnose` print it.
public enum CalibrationText {
    /// The calibration in two lines of text.
    public static func render(_ r: CalibrationReport) -> String {
        let scales = ObstacleKind.allCases.map { k in
            String(format: "%@ %.2f", k.word, r.scales[k.rawValue] ?? 1)
        }.joined(separator: ", ")
        return """
            detector sensitivity: \(r.isFactory ? "factory" : "calibrated") (\(scales); 1 = factory, \
            bounds \(DetectorSensitivity.bounds.lowerBound)…\(DetectorSensitivity.bounds.upperBound))
            answers: \(r.answers) (\(r.kept) kept, \(r.dropped) dropped), the last \(r.answersUsed) used
            """
    }
}
