import BikePathCore
import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing

/// Regression tests in gpsd's manner: each bundled recording `Recordings/NAME.bpr` sits
/// beside `NAME.bpr.chk`, the exact output of `bikepathd replay --json --crash-detection`
/// (every activity change, trip, track point, obstacle, road-quality stretch and SOS).
/// Any change in what the chain produces shows here line by line; when the change is
/// intended, rebuild the expected files with
///
///     BIKEPATH_REBUILD_CHK=1 swift test --filter ChainRegressionTests
///
/// and review the diff. Beside the exact comparison, the meaning is checked, so a wrong
/// expected file cannot pass: the real ride has no SOS, the simulated crash exactly one
/// within 5 s of the impact.
@Suite("Chain regression: recordings beside their expected outputs", .serialized, .ownThreads)
struct ChainRegressionTests {
    static let rebuild = ProcessInfo.processInfo.environment["BIKEPATH_REBUILD_CHK"] == "1"
    static let recordings = ["allthedocks-GX010056.bpr", "simulated-crash-GX010056.bpr"]

    /// The keys of docs/json.md these checks read.
    struct Output: Decodable {
        var schema: Int
        var type: String
        var time_s: Double?
        var impact_time_s: Double?
    }

    static func replay(_ name: String) throws -> String {
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let result = try runProcess(bikepathd, ["replay", "--json", "--crash-detection", Paths.root + "/Recordings/" + name])
        #expect(result.status == 0, "\(result.err)")
        return result.out
    }

    static func outputs(_ jsonLines: String) throws -> [Output] {
        try jsonLines.split(separator: "\n").map { try JSONDecoder().decode(Output.self, from: Data($0.utf8)) }
    }

    @Test("the simulated-crash recording is what its generator makes from the real ride")
    func crashRecordingIsReproducible() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let fresh = dir.file("fresh.bpr")
        try SimulatedCrashRecording.generate(to: Self.rebuild ? SimulatedCrashRecording.committed : fresh)
        if Self.rebuild { return }
        let same = FileManager.default.contents(atPath: fresh) == FileManager.default.contents(atPath: SimulatedCrashRecording.committed)
        #expect(same, "regenerate with BIKEPATH_REBUILD_CHK=1 if the generator changed on purpose")
    }

    @Test("replay output equals the expected file", arguments: recordings)
    func matchesExpected(_ name: String) throws {
        let actual = try Self.replay(name)
        let checkFile = Paths.root + "/Recordings/" + name + ".chk"
        if Self.rebuild {
            try actual.write(toFile: checkFile, atomically: true, encoding: .utf8)
            return
        }
        let expected = try String(contentsOfFile: checkFile, encoding: .utf8)
        let a = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let e = expected.split(separator: "\n", omittingEmptySubsequences: false)
        if let line = zip(a, e).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("\(name): line \(line.offset + 1) differs\n  expected: \(line.element.1)\n  actual:   \(line.element.0)")
        }
        #expect(a.count == e.count, "\(name): \(a.count) lines, expected \(e.count)")
    }

    @Test("the real ride: one trip and no SOS, with crash detection on")
    func realRideNoSOS() throws {
        let out = try Self.outputs(Self.replay("allthedocks-GX010056.bpr"))
        #expect(out.allSatisfy { $0.schema == 1 })
        #expect(out.filter { $0.type == "trip_started" }.count == 1)
        #expect(out.filter { $0.type == "sos" }.isEmpty)
    }

    @Test("the simulated crash: exactly one SOS, no later than 5 s after the impact")
    func simulatedCrashOneSOS() throws {
        let out = try Self.outputs(Self.replay("simulated-crash-GX010056.bpr"))
        let sos = out.filter { $0.type == "sos" }
        #expect(sos.count == 1)
        let alarm = try #require(sos.first)
        let impact = try #require(alarm.impact_time_s)
        let raised = try #require(alarm.time_s)
        #expect(abs(impact - SimulatedCrashRecording.crashAt) < 0.02, "impact found where it was put")
        #expect(raised > impact && raised - impact <= 5, "R18: within 5 s of sample time")
    }
}
