import BikePathAPI
import BikePathHub
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A test client that checks every JSON answer of the hub for the key case (docs/json.md,
/// "Key case") before handing it to the test: the hub suites that go through it
/// (`HubContractTests.withHub`, `RouteTests`, `MapPageTests`) check every answer they
/// already ask for, the map page's settings included.
struct KeyCaseCheckedClient: TestClientProtocol {
    let base: any TestClientProtocol
    var port: Int? { base.port }

    func executeRequest(uri: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?) async throws -> TestResponse {
        let response = try await base.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let text = String(buffer: response.body)
        if response.headers[.contentType]?.contains("json") == true {
            JSONKeyCase.expectSnakeCase(text, from: "\(method) \(uri)")
        } else if let settings = KeyCaseTests.mapPageSettings(text) {
            JSONKeyCase.expectSnakeCase(settings, from: "the settings of \(method) \(uri)")
        }
        return response
    }
}

@Suite(.serialized, .ownThreads) struct KeyCaseTests {
    /// The JSON the map page's script reads, inside its HTML (`<script type="application/json" id="config">`).
    static func mapPageSettings(_ html: String) -> String? {
        guard let open = html.range(of: #"<script type="application/json" id="config">"#),
            let close = html.range(of: "</script>", range: open.upperBound..<html.endIndex)
        else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }

    /// The property names docs/api.yaml declares: the keys under each `properties:`, those of
    /// an example's `properties: { … }` (the map's GeoJSON) and the names of each `required:` list.
    static func apiPropertyNames() throws -> [String] {
        let lines = try String(contentsOfFile: packageRoot + "/docs/api.yaml", encoding: .utf8).split(separator: "\n").map(String.init)
        func indent(_ line: String) -> Int { line.prefix { $0 == " " }.count }
        var names: [String] = []
        for (i, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("required: ["), let close = trimmed.firstIndex(of: "]") {
                names += trimmed[trimmed.index(trimmed.startIndex, offsetBy: 11)..<close].split(separator: ",").map {
                    $0.trimmingCharacters(in: .whitespaces)
                }
            }
            if trimmed.hasPrefix("properties: {"), trimmed.hasSuffix("}") {
                names += Self.flowKeys(trimmed.dropFirst("properties: {".count).dropLast())
            }
            guard trimmed == "properties:" else { continue }
            let own = indent(line)
            var child: Int?
            for next in lines[(i + 1)...] where !next.trimmingCharacters(in: .whitespaces).isEmpty {
                let depth = indent(next)
                if depth <= own { break }
                if child == nil { child = depth }
                if depth == child, let colon = next.firstIndex(of: ":") {
                    names.append(next[..<colon].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return names
    }

    /// The keys of a YAML flow mapping's inside (`kind: pothole, riders: 2, …`), nested ones left out.
    static func flowKeys(_ text: Substring) -> [String] {
        var keys: [String] = [], depth = 0, part = ""
        for c in text + "," {
            if "{[".contains(c) { depth += 1 } else if "}]".contains(c) { depth -= 1 }
            if c == "," && depth == 0 {
                if let colon = part.firstIndex(of: ":") { keys.append(part[..<colon].trimmingCharacters(in: .whitespaces)) }
                part = ""
            } else {
                part.append(c)
            }
        }
        return keys
    }

    @Test func apiYamlNamesEveryPropertySnakeCase() throws {
        let names = try Self.apiPropertyNames()
        #expect(
            names.contains("co2_avoided_g") && names.contains("status_m") && names.contains("passes_without_report") && names.count > 60,
            "the scan found \(names.count)")
        #expect(names.filter { !JSONKeyCase.isSnakeCase($0) }.isEmpty, "\(Set(names.filter { !JSONKeyCase.isSnakeCase($0) }))")
    }

    /// docs/json-schema.json closes every object the device prints (`additionalProperties:
    /// false`, checked against the commands' output by `JSONSchemaTests`), so its property
    /// names are all the keys the device can print there.
    @Test func theDevicesSchemaNamesEveryPropertySnakeCase() throws {
        let schema = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: packageRoot + "/docs/json-schema.json")))
        var names: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let properties = object["properties"] as? [String: Any] { names += properties.keys }
                if let required = object["required"] as? [String] { names += required }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(schema)
        #expect(names.contains("co2_avoided_g") && names.count > 100, "the walk found \(names.count)")
        #expect(names.filter { !JSONKeyCase.isSnakeCase($0) }.isEmpty, "\(Set(names.filter { !JSONKeyCase.isSnakeCase($0) }))")
    }

    /// Every kind of upload as the device encodes it, with every optional field present.
    @Test func theUploadsAreSnakeCase() throws {
        let confirmation = Fixtures.confirmation(id: "D-1", obstacles: [("pothole", 200)])
        var withHash = confirmation
        withHash.confirmedSha256 = String(repeating: "a", count: 64)
        let sos = SOSUpload(
            id: "S-1", timeNs: 9, impactTimeNs: 5, impactPeak: 40, utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4))
        let live = LivePositionUpload(utcNs: Fixtures.start, position: WirePosition(lat: 52.5, lon: 13.4), speed: 4)
        let batch = BatchRequest(records: [.init(id: "S-1", body: .sos(sos)), .init(id: "D-1", body: .confirmation(withHash))])
        let texts = try [
            WireJSON.encode(batch), WireJSON.encode(live), WireJSON.encode(Fixtures.trip("T-1")), WireJSON.encode(confirmation.draft),
        ].map { String(decoding: $0, as: UTF8.self) }
        for text in texts { #expect(JSONKeyCase.offendingKeys(in: text).isEmpty, "\(JSONKeyCase.offendingKeys(in: text))") }
        #expect(texts[0].contains(#""confirmed_sha256""#) && texts[0].contains(#""impact_peak_mps2""#))
        #expect(texts[2].contains(#""co2_avoided_g""#) && texts[3].contains(#""road_quality""#) && texts[1].contains(#""speed_mps""#))
    }

    /// The hub's answers to a device and to the public: records stored, a duplicate, a conflict
    /// and an invalid record in a batch, totals, the map's layers, a route refused for want of
    /// a path, errors and health. Each is walked (`KeyCaseCheckedClient`) and, here, said.
    @Test func everyAnswerOfTheHubIsSnakeCase() async throws {
        try await HubContractTests.withHub(.sqlite) { client, _ in
            var answers: [String: String] = [:]
            func keep(_ name: String, _ r: TestResponse) { answers[name] = String(buffer: r.body) }
            for device in ["bike-1", "bike-2"] {
                let id = "D-" + device
                keep(
                    "confirmation",
                    try await HubContractTests.put(
                        client, "/v1/drafts/\(id)/confirmation", Fixtures.confirmation(id: id, obstacles: [("pothole", 200)]),
                        device: device))
            }
            keep("trip", try await HubContractTests.put(client, "/v1/trips/T-1", Fixtures.trip("T-1")))
            var changed = Fixtures.trip("T-1")
            changed.statistics.distanceM += 1
            keep("conflict", try await HubContractTests.put(client, "/v1/trips/T-1", changed))
            var bad = Fixtures.trip("T-2")
            bad.statistics.maxSpeed = -3
            keep(
                "batch",
                try await HubContractTests.put(
                    client, "/v1/batch",
                    BatchRequest(records: [.init(id: "T-1", body: .trip(Fixtures.trip("T-1"))), .init(id: "T-2", body: .trip(bad))]),
                    method: .post))
            let auth: HTTPFields = [.authorization: "Bearer \(HubContractTests.tokens["bike-1"]!)"]
            keep("totals", try await client.execute(uri: "/v1/me/totals", method: .get, headers: auth))
            let box = "13.39,52.51,13.42,52.53"
            for layer in ["obstacles", "status", "network", "heatmap"] {
                let answer = try await client.execute(uri: "/v1/map/\(layer)?bbox=\(box)", method: .get)
                // The map is rebuilt in the background; an answer with features is what is walked.
                keep(layer, answer)
            }
            keep("no-path-near", try await client.execute(uri: "/v1/routes?from=10,10&to=10.01,10.01", method: .get))
            keep("bad-bbox", try await client.execute(uri: "/v1/map/obstacles?bbox=1,2", method: .get))
            keep("no-token", try await client.execute(uri: "/v1/me/totals", method: .get))
            keep("health", try await client.execute(uri: "/v1/health", method: .get))
            for (name, text) in answers {
                #expect(JSONKeyCase.offendingKeys(in: text).isEmpty, "\(name): \(JSONKeyCase.offendingKeys(in: text))")
            }
            #expect(answers["totals"]?.contains(#""co2_avoided_g""#) == true, "\(answers["totals"] ?? "")")
            #expect(answers["conflict"]?.contains(#""stored_sha256""#) == true, "\(answers["conflict"] ?? "")")
            #expect(answers["no-path-near"]?.contains("no-path-near") == true, "\(answers["no-path-near"] ?? "")")
        }
    }

    @Test func theMapPagesSettingsAreSnakeCase() async throws {
        try await MapPageTests.withHub(
            MapPageSettings(basemapURL: "https://tile.example/{z}/{x}/{y}.png", view: MapPageSettings.View("52.5,13.4,12"))
        ) {
            client in
            let page = String(buffer: try await client.execute(uri: "/map", method: .get).body)
            guard MapPageTests.leafletInstalled else { return }
            let settings = try #require(Self.mapPageSettings(page), "\(page)")
            #expect(settings.contains(#""basemap_url""#) && settings.contains(#""max_square_km""#), "\(settings)")
            #expect(JSONKeyCase.offendingKeys(in: settings).isEmpty, "\(JSONKeyCase.offendingKeys(in: settings))")
        }
    }

    /// The checker itself: a camelCase key anywhere fails, and values are not keys.
    @Test func theCheckerFindsCamelCaseKeysAtAnyDepth() {
        #expect(JSONKeyCase.offendingKeys(in: #"{"a_b":[{"c":{"distanceM":1}}],"s":"requiresMaintenance"}"#) == ["$.a_b[0].c.distanceM"])
        #expect(JSONKeyCase.offendingKeys(in: "{\"x_s\":1}\n{\"lastSeen\":2}") == ["line 2: $.lastSeen"])
        #expect(JSONKeyCase.offendingKeys(in: #"{"status_m":{"requiresMaintenance":3}}"#).isEmpty)
    }
}
