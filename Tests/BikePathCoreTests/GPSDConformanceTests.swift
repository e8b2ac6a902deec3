import Foundation
import Testing
@testable import BikePathCore

/// Every TPV gpsd produced for its 87 regression logs with expected output, against
/// the fixes decoded here (matching rule: see LogAgreement). Set
/// GPSD_AGREEMENT_REPORT=/path/file.md to also write the per-log table.
@Suite struct GPSDConformanceTests {
    @Test func agreesWithGPSDOnItsRegressionLogs() throws {
        let dir = GPSDConformance.fixturesDirectory()
        let logs = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".log") }.sorted()
        #expect(logs.count == 88)
        var results: [LogAgreement] = []
        for log in logs {
            let logData = try Data(contentsOf: dir.appendingPathComponent(log))
            let decoded = GPSDConformance.decode(logData: logData)
            guard let check = try? Data(contentsOf: dir.appendingPathComponent(log + ".chk")) else { continue }
            var result = GPSDConformance.compare(
                name: log, fixes: decoded.fixes,
                reports: GPSDConformance.reports(checkData: check))
            result.statistics = decoded.statistics
            results.append(result)
        }
        let table = Self.table(results)
        print(table)
        if let path = ProcessInfo.processInfo.environment["GPSD_AGREEMENT_REPORT"] {
            try table.write(toFile: path, atomically: true, encoding: .utf8)
        }
        let scored = results.reduce(0) { $0 + $1.scored }
        let matched = results.reduce(0) { $0 + $1.matched }
        #expect(scored > 1500, "the logs hold thousands of TPVs")
        #expect(Double(matched) >= 0.95 * Double(scored), "agreement \(matched)/\(scored)")
    }

    static func table(_ results: [LogAgreement]) -> String {
        var lines = [
            "| log | scored TPVs | agree | % | superseded | no time | disagreements |",
            "|---|---:|---:|---:|---:|---:|---|",
        ]
        for r in results {
            let d = Disagreement.allCases.compactMap { k in r.disagreements[k].map { "\(k.rawValue) \($0)" } }
            lines.append(
                "| \(r.name) | \(r.scored) | \(r.matched) | \(String(format: "%.1f", r.percent)) | \(r.superseded) | \(r.timeless) | \(d.joined(separator: ", ")) |"
            )
        }
        let scored = results.reduce(0) { $0 + $1.scored }, matched = results.reduce(0) { $0 + $1.matched }
        let superseded = results.reduce(0) { $0 + $1.superseded }, timeless = results.reduce(0) { $0 + $1.timeless }
        lines.append(
            "| **total** | \(scored) | \(matched) | \(String(format: "%.2f", 100 * Double(matched) / Double(max(scored, 1)))) | \(superseded) | \(timeless) | |"
        )
        let supersededAgreeing = results.reduce(0) { $0 + $1.supersededAgreeing }
        lines.append("")
        lines.append("Superseded TPVs (not scored) that agree with our fix for their time anyway: \(supersededAgreeing) of \(superseded).")
        lines.append("")
        lines.append("Examples of disagreements (first three per log):")
        lines.append("")
        for r in results where !r.examples.isEmpty {
            for e in r.examples { lines.append("- \(r.name): \(e)") }
        }
        return lines.joined(separator: "\n")
    }
}
