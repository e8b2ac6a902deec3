import Foundation
import Testing
@testable import BikePathCore

/// The obstacle detector on the labelled González 2017 windows (docs/evaluation.md).
/// A window counts as "anomaly" when the detector reports at least one event.
struct GonzalezEvaluationTests {
    struct Result {
        var flagged: [String: Int] = [:]
        var total: [String: Int] = [:]
        func rate(_ c: String) -> Double { Double(flagged[c] ?? 0) / Double(max(total[c] ?? 0, 1)) }
        var fpr: Double { rate("regular_road") }
        var accuracy: Double {
            let n = total.values.reduce(0, +)
            let correct = total.keys.reduce(0) { sum, c in
                sum + (c == "regular_road" ? total[c]! - (flagged[c] ?? 0) : (flagged[c] ?? 0))
            }
            return Double(correct) / Double(max(n, 1))
        }
    }

    static func evaluate() throws -> Result {
        let root = TestData.fixture("gonzalez-2017")
        var result = Result()
        let classes = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { !$0.hasSuffix(".md") }
        for c in classes.sorted() {
            for file in try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(c).path).sorted() {
                let text = try String(contentsOf: root.appendingPathComponent(c).appendingPathComponent(file), encoding: .utf8)
                let values = try AccelZSeries.parse(text)
                result.total[c, default: 0] += 1
                if !ObstacleDetector.detect(verticalAcceleration: values, rate: 50).isEmpty { result.flagged[c, default: 0] += 1 }
            }
        }
        return result
    }

    @Test func measuredFloors() throws {
        let r = try Self.evaluate()
        #expect(r.total.values.reduce(0, +) == 250)
        print(
            String(
                format: "González 2017: accuracy %.1f%%, FPR %.1f%%, recall potholes %.1f%%, asphalt %.1f%%, metal %.1f%%, worn %.1f%%",
                100 * r.accuracy, 100 * r.fpr, 100 * r.rate("potholes"), 100 * r.rate("asphalt_bumps"),
                100 * r.rate("metal_bumps"), 100 * r.rate("worn_out_road")))
        // Floors just under what the cross-validated detector measures (79.2 %, 70 %, 28 %),
        // so a regression shows. The paper's 95 % goal is retired: these car
        // windows are a sanity check, the bicycle is the yardstick (docs/evaluation.md).
        #expect(r.accuracy >= 0.77)
        #expect(r.rate("potholes") >= 0.66)
        #expect(r.rate("asphalt_bumps") >= 0.94 && r.rate("metal_bumps") >= 0.86)
        #expect(r.fpr <= 0.30)
    }
}
