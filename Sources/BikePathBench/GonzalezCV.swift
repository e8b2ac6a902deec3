import BikePathCore
import Foundation

/// Two-fold cross-validation of the obstacle detector's thresholds on the González 2017
/// windows: files are split by their sorted position within each class (even/odd), a
/// grid is searched on one half, and the chosen setting is scored on the other half.
/// No parameter is chosen per file; the grid is small and coarse on purpose.
enum GonzalezCV {
    struct Window { var label: String; var fold: Int; var samples: [Float] }

    static func load(_ root: String) throws -> [Window] {
        var windows: [Window] = []
        let fm = FileManager.default
        for label in try fm.contentsOfDirectory(atPath: root).sorted() {
            let dir = root + "/" + label
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else { continue }
            let files = try fm.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
            for (i, f) in files.enumerated() {
                let text = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
                let values = try AccelZSeries.parse(text)
                windows.append(Window(label: label, fold: i % 2, samples: values))
            }
        }
        return windows
    }

    struct Score: CustomStringConvertible {
        var accuracy = 0.0, fpr = 0.0, recall: [String: Double] = [:]
        var description: String {
            let r = recall.keys.sorted().map { "\($0) \(pct(recall[$0]!))" }.joined(separator: ", ")
            return "accuracy \(pct(accuracy)), FPR \(pct(fpr)); recall: \(r)"
        }
    }

    static func pct(_ x: Double) -> String { String(format: "%.1f%%", 100 * x) }

    static func score(_ windows: [Window], _ config: ObstacleDetectorConfiguration) -> Score {
        var total: [String: Int] = [:], flagged: [String: Int] = [:]
        for w in windows {
            total[w.label, default: 0] += 1
            if !ObstacleDetector.detect(verticalAcceleration: w.samples, rate: 50, configuration: config).isEmpty {
                flagged[w.label, default: 0] += 1
            }
        }
        var s = Score(), correct = 0, n = 0
        for (label, t) in total {
            let f = flagged[label] ?? 0
            n += t
            if label == "regular_road" {
                correct += t - f; s.fpr = Double(f) / Double(t)
            } else {
                correct += f; s.recall[label] = Double(f) / Double(t)
            }
        }
        s.accuracy = Double(correct) / Double(max(n, 1))
        return s
    }

    static func grid() -> [ObstacleDetectorConfiguration] {
        var out: [ObstacleDetectorConfiguration] = []
        for sigmas in stride(from: Float(0), through: 8, by: 1) {
            for floor in stride(from: Float(0.5), through: 6, by: 0.25) {
                var c = ObstacleDetectorConfiguration()
                c.thresholdSigmas = sigmas
                c.minimumPeak = floor
                out.append(c)
            }
        }
        return out
    }

    static func run(root: String) throws {
        let windows = try load(root)
        print("González 2017: \(windows.count) windows")
        let candidates = grid()
        for (name, objective) in [
            (
                "max balanced accuracy (mean of anomaly recall and regular specificity)",
                { (s: Score) in
                    let anomalies = s.recall.values.reduce(0, +) / Double(max(s.recall.count, 1))
                    return (anomalies + 1 - s.fpr) / 2
                }
            ),
            ("max accuracy", { (s: Score) in s.accuracy }),
            ("max accuracy with FPR <= 3%", { (s: Score) in s.fpr <= 0.03 ? s.accuracy : -1 }),
        ] as [(String, (Score) -> Double)] {
            print("objective: \(name)")
            for fold in 0...1 {
                let train = windows.filter { $0.fold == fold }, test = windows.filter { $0.fold != fold }
                let best = candidates.max { objective(score(train, $0)) < objective(score(train, $1)) }!
                print("  pick on half \(fold): sigmas \(best.thresholdSigmas), floor \(best.minimumPeak) m/s²")
                print("    train: \(score(train, best))")
                print("    test:  \(score(test, best))")
            }
            let all = candidates.max { objective(score(windows, $0)) < objective(score(windows, $1)) }!
            print("  pick on all: sigmas \(all.thresholdSigmas), floor \(all.minimumPeak) m/s²: \(score(windows, all))")
        }
        print("sensitivity to the adaptive part (floor at the default):")
        for sigmas in stride(from: Float(0), through: 8, by: 1) {
            var c = ObstacleDetectorConfiguration()
            c.thresholdSigmas = sigmas
            print("  sigmas \(sigmas): \(score(windows, c))")
        }
        print("defaults on all windows: \(score(windows, .init()))")
    }
}
