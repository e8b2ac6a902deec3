import BikePathTestSupport
import Foundation
import Testing

/// docs/json.md: every line `replay --json` and `detect` print follows schema 1 —
/// a `schema` and a `type`, snake_case keys with units, times as seconds or ISO
/// 8601, no Swift encodings (`{"nanoseconds": …}`) and no numbers in strings.
@Suite struct JSONSchemaTests {
    private func bikepathd() throws -> String { try #require(builtExecutable("bikepathd"), "bikepathd is not built") }

    /// Walks a decoded JSON value and names every rule it breaks.
    static func violations(_ value: Any, path: String = "") -> [String] {
        var out: [String] = []
        if let object = value as? [String: Any] {
            for (key, child) in object {
                if key != key.lowercased() || key.contains("-") { out.append("\(path)\(key): not snake_case") }
                if ["nanoseconds", "nanosecondsSince1970", "output", "t", "value"].contains(key) { out.append("\(path)\(key): a leaked or retired key") }
                if let text = child as? String, Double(text) != nil { out.append("\(path)\(key): a number in a string") }
                if key == "utc" || key.hasSuffix("_utc"), let text = child as? String,
                   text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) == nil {
                    out.append("\(path)\(key): not ISO 8601 UTC: \(text)")
                }
                out += violations(child, path: path + key + ".")
            }
        } else if let array = value as? [Any] {
            for child in array { out += violations(child, path: path) }
        }
        return out
    }

    static func check(_ jsonLines: String) throws -> [String: Int] {
        var types: [String: Int] = [:]
        for line in jsonLines.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line.prefix(200))")
            #expect(object["schema"] as? Int == 1, "\(line.prefix(200))")
            let type = try #require(object["type"] as? String, "\(line.prefix(200))")
            types[type, default: 0] += 1
            let broken = violations(object)
            #expect(broken.isEmpty, "\(broken.prefix(5)) in \(line.prefix(200))")
        }
        return types
    }

    @Test func replayJSONFollowsTheSchema() throws {
        let out = try runProcess(try bikepathd(), ["replay", "--json", "--crash-detection", Paths.root + "/Recordings/simulated-crash-GX010056.bpr"])
        #expect(out.status == 0, "\(out.err)")
        let types = try Self.check(out.out)
        for type in ["activity", "trip_started", "track_point", "obstacle", "road_quality", "trip_ended", "sos"] {
            #expect(types[type, default: 0] > 0, "no \(type) line: \(types)")
        }
    }

    @Test func detectPrintsObstacleLinesOfTheSameSchema() throws {
        let dir = Paths.root + "/Tests/BikePathCoreTests/Fixtures/gonzalez-2017/potholes"
        let files = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".csv") }.sorted()
        var seen = 0
        for file in files.prefix(20) {
            let out = try runProcess(try bikepathd(), ["detect", "--accel-z-csv", dir + "/" + file, "--rate", "50"])
            #expect(out.status == 0, "\(out.err)")
            seen += try Self.check(out.out)["obstacle", default: 0]
        }
        #expect(seen > 0, "the pothole windows give obstacle lines")
    }
}
