import BikePathTestSupport
import Foundation
import Testing

/// docs/json.md: every line `replay --json` and `detect` print follows schema 1 —
/// a `schema` and a `type`, snake_case keys with units, times as seconds or ISO
/// 8601, no Swift encodings (`{"nanoseconds": …}`) and no numbers in strings.
@Suite(.ownThreads) struct JSONSchemaTests {
    private func bikepathd() throws -> String { try #require(builtExecutable("bikepathd"), "bikepathd is not built") }

    /// Walks a decoded JSON value and names every rule it breaks.
    static func violations(_ value: Any, path: String = "") -> [String] {
        var out: [String] = []
        if let object = value as? [String: Any] {
            for (key, child) in object {
                if key != key.lowercased() || key.contains("-") { out.append("\(path)\(key): not snake_case") }
                if ["nanoseconds", "nanosecondsSince1970", "output", "t", "value"].contains(key) {
                    out.append("\(path)\(key): a leaked or retired key")
                }
                // A pairing code is digits by design (typed on a phone), text like an id.
                if key != "code", let text = child as? String, Double(text) != nil { out.append("\(path)\(key): a number in a string") }
                if key == "utc" || key.hasSuffix("_utc"), let text = child as? String,
                    text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$"#, options: .regularExpression) == nil
                {
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
        let schema = try Self.schema()
        for line in jsonLines.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line.prefix(200))")
            #expect(object["schema"] as? Int == 1, "\(line.prefix(200))")
            let type = try #require(object["type"] as? String, "\(line.prefix(200))")
            types[type, default: 0] += 1
            let broken = violations(object)
            #expect(broken.isEmpty, "\(broken.prefix(5)) in \(line.prefix(200))")
            let invalid = schema.violations(of: try JSONValue.parse(String(line)), definition: "line_" + type)
            #expect(invalid.isEmpty, "\(invalid.prefix(5)) in \(line.prefix(200))")
        }
        return types
    }

    /// docs/json-schema.json, the machine-readable form of docs/json.md.
    static func schema() throws -> JSONSchemaValidator { try JSONSchemaValidator(path: Paths.root + "/docs/json-schema.json") }

    /// One command's `--json` document against its definition, and the general rules.
    @discardableResult
    private func document(
        _ arguments: [String], _ definition: String, status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> JSONValue {
        let out = try runProcess(try bikepathd(), arguments)
        #expect(out.status == status, "\(arguments): exit \(out.status): \(out.err)", sourceLocation: sourceLocation)
        let value = try JSONValue.parse(out.out)
        let invalid = try Self.schema().violations(of: value, definition: definition)
        #expect(invalid.isEmpty, "\(arguments.prefix(3)): \(invalid.prefix(8))", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(out.out.utf8))
        let broken = Self.violations(object)
        #expect(broken.isEmpty, "\(arguments.prefix(3)): \(broken.prefix(5))", sourceLocation: sourceLocation)
        return value
    }

    /// Every store command's `--json` prints only keys docs/json.md lists, with typed values
    /// (`edits[].detail` an object of numbers, not a JSON text; `expires_utc_ns` a number;
    /// snake_case keys): each validates against its definition in docs/json-schema.json
    /// (unlisted keys are refused: `additionalProperties: false`).
    @Test(.timeLimitOnceRunning(.minutes(3))) func everyStoreCommandsJSONFollowsTheSchema() throws {
        let bench = try #require(builtExecutable("BikePathBench"), "BikePathBench is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("s.db")
        let filled = try runProcess(bench, ["store-replay", "--db", db, "--trips", "3", "--seconds-per-trip", "300"])
        #expect(filled.status == 0, "\(filled.err)")
        let store = ["--db", db, "--json"]

        guard case .object(let list) = try document(["drafts", "list"] + store, "drafts_list"),
            case .array(let drafts)? = list["drafts"], drafts.count == 3
        else { Issue.record("three drafts expected"); return }
        guard case .object(let shown) = try document(["drafts", "show", "1"] + store, "draft"),
            case .array(let obstacles)? = shown["obstacles"]
        else { Issue.record("drafts show has no obstacles"); return }
        var edit = ["drafts", "edit", "1", "--add", "bump@100", "--path-status", "medium"] + store
        if case .object(let first)? = obstacles.first, case .string(let id)? = first["id"] {
            edit += ["--set-kind", "\(id)=\(first["kind"] == .string("debris") ? "bump" : "debris")"]
        }
        guard case .object(let edited) = try document(edit, "draft"), case .array(let edits)? = edited["edits"] else {
            Issue.record("drafts edit printed no edits"); return
        }
        // The added obstacle's detail: its position and time as numbers, not a JSON text of strings.
        let add = edits.compactMap { e -> [String: JSONValue]? in
            guard case .object(let o) = e, o["action"] == .string("add"), case .object(let d)? = o["detail"] else { return nil }
            return d
        }.first
        #expect(add?["kind"] == .string("bump"))
        if case .number(let offset)? = add?["offset_s"] {
            #expect(abs(offset - 100) < 1e-6)
        } else {
            Issue.record("no offset_s in \(String(describing: add))")
        }
        for key in ["lat", "lon", "time_s"] {
            if case .number? = add?[key] {} else { Issue.record("\(key) is not a number in \(String(describing: add))") }
        }
        try document(["drafts", "confirm", "1"] + store, "draft_transition")
        try document(["drafts", "reject", "2"] + store, "draft_transition")
        try document(["drafts", "show", "no-such-draft"] + store, "error", status: 1)
        try document(["review", "pair"] + store, "review_pair")
        try document(["sync", "consent"] + store, "sync_consent")
        try document(["sync", "consent", "trips", "on"] + store, "sync_consent")
        try document(["sync", "privacy", "--add-zone", "home,52.52,13.40,300"] + store, "sync_privacy")
        try document(["sync", "status"] + store, "sync_status")
        try document(["sync", "requeue", "--all"] + store, "sync_requeue")
        try document(["stats"] + store, "stats")
        try document(["verify"] + store, "verify")
        try document(["calibration", "show"] + store, "calibration")
    }

    /// `diagnose --json` printed its Swift types' keys (`tryThis`, `duplicateTPVs`), a sample
    /// time as `{"nanoseconds": …}` and no `schema`; `config show --json` had no `schema` either.
    @Test(.timeLimitOnceRunning(.minutes(2))) func diagnoseAndConfigFollowTheSchema() throws {
        let bench = try #require(builtExecutable("BikePathBench"), "BikePathBench is not built")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let db = dir.file("s.db")
        #expect(try runProcess(bench, ["store-replay", "--db", db, "--trips", "1", "--seconds-per-trip", "60"]).status == 0)
        // No gpsd on this port, no IIO context at this URI: both sensors report a problem, exit 2.
        let nowhere = ["--gpsd-port", "\(freeLoopbackPort())", "--iio-uri", "ip:127.0.0.1:\(freeLoopbackPort())", "--duration", "0.5"]
        guard case .object(let report) = try document(["diagnose", "--json", "--db", db] + nowhere, "diagnose", status: 2),
            case .object(let sensors)? = report["sensors"], case .array(let problems)? = sensors["problems"]
        else {
            Issue.record("diagnose printed no sensors' problems"); return
        }
        #expect(problems.count == 2)
        if case .object(let store)? = report["store"] {
            #expect(store["path"] == .string(db))
        } else {
            Issue.record("no store in \(report)")
        }
        try document(["diagnose", "--json", "--no-store", "--require", "none"] + nowhere, "diagnose")
        try document(["config", "show", "--json"], "config")
    }

    /// `run --replay --summary` printed the Swift type's camelCase keys (`tripsEnded`).
    @Test(.timeLimitOnceRunning(.minutes(3))) func runSummaryFollowsTheSchema() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let config = dir.file("bikepathd.toml")
        try "[store]\npath = \"\(dir.file("store.sqlite"))\"\n[status]\nsocket = \"\(dir.file("status.sock"))\"\n"
            .write(toFile: config, atomically: true, encoding: .utf8)
        try document(
            ["run", "--config", config, "--replay", Paths.root + "/Recordings/allthedocks-GX010056.bpr", "--summary"], "run_summary")
    }

    /// docs/json.md names every key the machine-readable schema has, so the two cannot drift apart.
    @Test func docsJSONNamesEveryKeyOfTheSchema() throws {
        let doc = try String(contentsOfFile: Paths.root + "/docs/json.md", encoding: .utf8)
        var keys = Set<String>()
        func walk(_ v: JSONValue) {
            switch v {
            case .object(let o):
                if case .object(let props)? = o["properties"] { keys.formUnion(props.keys) }
                o.values.forEach(walk)
            case .array(let a): a.forEach(walk)
            default: break
            }
        }
        walk(try Self.schema().root)
        let missing = keys.filter { !doc.contains("`\($0)`") && !doc.contains("\"\($0)\"") }.sorted()
        #expect(missing.isEmpty, "keys of docs/json-schema.json that docs/json.md does not name: \(missing)")
    }

    @Test func replayJSONFollowsTheSchema() throws {
        let out = try runProcess(
            try bikepathd(), ["replay", "--json", "--crash-detection", Paths.root + "/Recordings/simulated-crash-GX010056.bpr"])
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
