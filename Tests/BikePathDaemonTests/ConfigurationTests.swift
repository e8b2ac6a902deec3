import Foundation
import Testing
@testable import BikePathDaemon

@Suite("Configuration file", .ownThreads)
struct ConfigurationTests {
    @Test("The example file parses and holds exactly the documented defaults, but for a loopback review page")
    func exampleIsDefaults() throws {
        let text = try Repository.text("systemd/bikepathd.toml")
        let parsed = try ConfigurationLoader.parse(text, file: "bikepathd.toml")
        // Off by default; the installed example serves it on loopback only (docs/review.md).
        var expected = DaemonConfiguration()
        expected.review.listen = "127.0.0.1:8080"
        #expect(parsed == expected)
    }

    @Test("review.listen takes HOST:PORT or nothing")
    func reviewListen() throws {
        #expect(try ConfigurationLoader.parse("[review]\nlisten = \"0.0.0.0:8080\"", file: "x").review.listen == "0.0.0.0:8080")
        for bad in ["8080", "host:", ":8080", "host:99999"] {
            #expect(throws: ConfigurationError.self) { try ConfigurationLoader.parse("[review]\nlisten = \"\(bad)\"", file: "x") }
        }
    }

    @Test("An empty file gives the defaults")
    func emptyIsDefaults() throws {
        #expect(try ConfigurationLoader.parse("", file: "x") == DaemonConfiguration())
    }

    @Test("Values are read into their fields; integers are accepted for numbers")
    func readsValues() throws {
        let c = try ConfigurationLoader.parse(
            """
            [gnss]
            host = "gps.local"
            port = 3000
            [imu]
            rate_hz = 200
            device = "bmi160"
            [privacy]
            share_trips = true
            [[privacy.zones]]
            name = "home"
            lat = 52.5
            lon = 13.25
            radius_m = 150
            [sync]
            hub_url = "https://hub.example.org/api"
            [log]
            level = "debug"
            """, file: "x")
        #expect(c.gnss.host == "gps.local")
        #expect(c.gnss.port == 3000)
        #expect(c.imu.rateHz == 200)
        #expect(c.imu.device == "bmi160")
        #expect(c.privacy.shareTrips == true)
        #expect(c.privacy.zones == [.init(name: "home", lat: 52.5, lon: 13.25, radiusM: 150)])
        #expect(c.sync.hubURL == "https://hub.example.org/api")
        #expect(c.log.level == .debug)
        #expect(c.store == DaemonConfiguration.Store())
    }

    @Test("Every bad value is named with its line, key and reason")
    func badFile() throws {
        let text = try Repository.fixture("bad.toml")
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationLoader.parse(text, file: "bad.toml") }
        let found = error.problems.map { "\($0.line.map(String.init) ?? "-") \($0.key)" }
        #expect(
            found.sorted()
                == [
                    "13 log.level", "16 privacy.trim_s", "20 privacy.zones[0].lat", "24 privacy.zones[1].radius_m",
                    "30 status.sockett", "32 colour", "4 gnss.port", "7 imu.rate_hz", "10 sync.hub_url",
                ].sorted())
        func reason(_ key: String) -> String? { error.problems.first { $0.key == key }?.reason }
        #expect(reason("gnss.port") == "70000 is out of range 1...65535")
        #expect(reason("imu.rate_hz") == "expected a number, found string \"fast\"")
        #expect(reason("sync.hub_url")?.contains("scheme must be http or https") == true)
        #expect(reason("log.level")?.contains("\"loud\" is not one of trace, debug") == true)
        #expect(reason("privacy.trim_s") == "-1 is out of range 0...3600")
        #expect(reason("privacy.zones[1].radius_m") == "missing (required)")
        #expect(reason("status.sockett") == "unknown key")
        #expect(reason("colour") == "unknown key")
        #expect(error.description.contains("bad.toml:4: gnss.port: 70000 is out of range 1...65535"))
    }

    /// The problems `text` has, as `key: reason` lines; "(accepted)" when it has none (and not
    /// the configuration, whose 100,000-byte path would fill the log).
    static func problem(_ text: String) -> String {
        do {
            _ = try ConfigurationLoader.parse(text, file: "f")
            return "(accepted)"
        } catch {
            return error.problems.map { "\($0.key): \($0.reason)" }.joined(separator: "\n")
        }
    }

    @Test("Paths the kernel cannot open are refused: over PATH_MAX, a name over NAME_MAX, a control character")
    func impossiblePaths() throws {
        let long = "/" + String(repeating: "a/", count: 50_000)  // 100,001 bytes of 1-byte names
        #expect(
            Self.problem("[store]\npath = \"\(long)\"")
                == "store.path: is 100001 bytes long; a path holds at most 4095 (PATH_MAX 4096, its NUL included)")
        let name = String(repeating: "n", count: 256)
        #expect(
            Self.problem("[store]\npath = \"/var/\(name)\"")
                == "store.path: has a component of 256 bytes (\"nnnnnnnnnnnnnnnn…\"); a file name holds at most 255 (NAME_MAX)")
        #expect(
            Self.problem(#"[store]\#npath = "/var/lib/a\u0007b""#)
                == "store.path: contains the control character U+0007 at character 11; a path holds none")
        #expect(
            Self.problem(#"[sync]\#nca_file = "/etc/ca\npem""#)
                == "sync.ca_file: contains the control character U+000A at character 8; a path holds none")
        // The longest that fits: 4095 bytes, every name 255 bytes or less.
        let longest = String(("/" + String(repeating: String(repeating: "b", count: 254) + "/", count: 17)).utf8.prefix(4095))!
        #expect(longest.utf8.count == 4095)
        #expect(try ConfigurationLoader.parse("[store]\npath = \"\(longest)\"", file: "f").store.path == longest)
        #expect(try ConfigurationLoader.parse("[store]\npath = \"/var/\(name.dropLast())\"", file: "f").store.path.utf8.count == 260)
    }

    @Test("URLs with a control character or a space, another scheme or no host are refused")
    func impossibleURLs() throws {
        #expect(
            Self.problem(#"[sync]\#nhub_url = "http://hub\u0007.example.org""#)
                == "sync.hub_url: contains the control character U+0007 at character 11; a URL holds none")
        #expect(
            Self.problem(#"[sync]\#nhub_url = "https://hub.example.org/a b""#)
                == "sync.hub_url: contains a space at character 26; write it as %20")
        #expect(
            Self.problem(#"[sync]\#nhub_url = "ftp://hub.example.org""#)
                == #"sync.hub_url: "ftp://hub.example.org": scheme must be http or https"#)
        #expect(Self.problem(#"[sync]\#nhub_url = "https://""#).hasPrefix("sync.hub_url: "))
        #expect(
            Self.problem(#"[review]\#ntiles_url = "https://t.example/{z}/{x}/{y}.png\u001B""#)
                == "review.tiles_url: contains the control character U+001B at character 34; a URL holds none")
        #expect(
            try ConfigurationLoader.parse(#"[sync]\#nhub_url = "https://hub.example.org:8443/v1""#, file: "f").sync.hubURL
                == "https://hub.example.org:8443/v1")
    }

    @Test("A syntax error gives TOMLKit's line")
    func syntaxError() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse("[gnss]\nport = 1\nhost = \"unterminated\n", file: "f")
        }
        #expect(error.problems.count == 1)
        #expect(error.problems[0].line == 3)
        #expect(error.problems[0].key == "(syntax)")
    }

    @Test("A section of the wrong type, and keys inside inline tables, are located")
    func inlineAndWrongType() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try ConfigurationLoader.parse(
                """
                gnss = 5
                [privacy]
                zones = [{ name = "home", lat = 52.0, lon = 200.0, radius_m = 10.0 }]
                """, file: "f")
        }
        let byKey = Dictionary(uniqueKeysWithValues: error.problems.map { ($0.key, $0) })
        #expect(byKey["gnss"]?.line == 1)
        #expect(byKey["gnss"]?.reason == "expected a table, found integer 5")
        #expect(byKey["privacy.zones[0].lon"]?.line == 3)
        #expect(byKey["privacy.zones[0].lon"]?.reason == "200.0 is out of range -180...180")
    }

    @Test("config show's TOML reads back as the same configuration")
    func renderRoundTrip() throws {
        var c = DaemonConfiguration()
        #expect(try ConfigurationLoader.parse(c.tomlText(), file: "show") == c)
        c.gnss.host = "a \"quoted\" host\\"
        c.imu.rateHz = 123.456
        c.privacy.zones = [
            .init(name: "home", lat: -33.8688, lon: 151.2093, radiusM: 250), .init(name: "w", lat: 0.1, lon: 0.2, radiusM: 1),
        ]
        c.log.level = .trace
        c.sync.hubURL = "http://127.0.0.1:8080"
        #expect(try ConfigurationLoader.parse(c.tomlText(), file: "show") == c)
    }

    @Test("JSON uses the file's key names")
    func json() throws {
        let json = DaemonConfiguration().jsonText()
        #expect(json.contains("\"rate_hz\" : 100"))
        #expect(json.contains("\"commit_interval_s\" : 1"))
        let decoded = try JSONDecoder().decode(DaemonConfiguration.self, from: Data(json.utf8))
        #expect(decoded == DaemonConfiguration())
        var c = DaemonConfiguration()
        c.privacy.zones = [.init(name: "home", lat: -33.8688, lon: 151.2093, radiusM: 250)]
        c.privacy.shareSOS = false
        c.imu.rateHz = 123.456
        c.log.level = .trace
        c.obstacles.reviewBudget = 7
        #expect(!DaemonConfiguration().jsonText().contains("share_sos"), "absent: the rider decides")
        #expect(try JSONDecoder().decode(DaemonConfiguration.self, from: Data(c.jsonText().utf8)) == c)
    }

    /// docs/configuration.md's key reference is the table's: a row per key, in the table's order,
    /// with the key's default (`DaemonConfiguration()`) and its doc line, and no row for a key the table lacks.
    @Test("docs/configuration.md lists every key with the table's default and doc line")
    func everyKeyDocumented() throws {
        let doc = try Repository.text("docs/configuration.md")
        #expect(ConfigurationKey.all.count == 36)
        // `| key | type | default | range / values | meaning |`
        let rows = doc.split(separator: "\n").filter { $0.hasPrefix("| `") }.map {
            $0.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }.filter { $0.count == 5 }
        #expect(rows.map { $0[0] } == ConfigurationKey.all.map { "`\($0.path)`" })
        for key in ConfigurationKey.all {
            let row = try #require(rows.first { $0[0] == "`\(key.path)`" }, "\(key.path) missing from docs/configuration.md")
            #expect(row[2] == Self.documented(key.defaultValue), "\(key.path)'s default")
            #expect(row[4] == key.doc, "\(key.path)'s doc line")
        }
        let flagged = ConfigurationKey.all.filter { $0.flag != nil }
        #expect(flagged.count == 11)
        for key in flagged {
            let row = "| `--\(key.flag?.name ?? "")"
            #expect(doc.split(separator: "\n").contains { $0.hasPrefix(row) && $0.contains("`\(key.path)`") }, "\(row) missing")
        }
    }

    /// A default as the page writes it: TOML's literal in backticks, a whole number without its point.
    static func documented(_ value: ConfigurationValue?) -> String {
        switch value {
        case nil: "absent"
        case .double(let d) where d == d.rounded(): "`\(Int(d))`"
        case .double(let d): "`\(d)`"
        case .zones(let z) where z.isEmpty: "`[]`"
        case let v?: "`\(v.tomlText)`"
        }
    }

    /// The table is the one place a key's path is spelled: the modules that can read it name a key by its
    /// field (`ConfigurationKey.path(\.sync.hubURL)`), the modules below it (the store, the review page, sync)
    /// are handed the path by their caller, so a renamed key cannot leave a stale message behind.
    @Test("No key path is spelled as a string outside ConfigurationKey.all")
    func keyPathsSpelledOnce() throws {
        let paths = ConfigurationKey.all.map(\.path)
        for module in [
            "Sources/BikePathDaemon", "Sources/BikePathCLI", "Sources/bikepathd", "Sources/BikePathStore", "Sources/BikePathReview",
            "Sources/BikePathSync",
        ] {
            let dir = Repository.root.appendingPathComponent(module)
            let files = try #require(FileManager.default.enumerator(atPath: dir.path)).compactMap { $0 as? String }
            for file in files where file.hasSuffix(".swift") && !file.hasSuffix("ConfigurationKey.swift") {
                let text = try Repository.text("\(module)/\(file)")
                // What lies between quotes on a line that is not a comment: the strings, roughly.
                let strings = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }.flatMap {
                    $0.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
                }
                for path in paths {
                    // The path as words, not a field read (`c.store.path`) or interpolated (`\(store.path)`).
                    let pattern = #"(?<![\w.])(?<!\\\()"# + NSRegularExpression.escapedPattern(for: path) + #"(?!\w)"#
                    let spelled = try NSRegularExpression(pattern: pattern)
                    let found = strings.filter {
                        spelled.firstMatch(in: String($0), range: NSRange(location: 0, length: $0.utf16.count)) != nil
                    }
                    #expect(found.isEmpty, "\(module)/\(file) spells \(path): \(found)")
                }
            }
        }
    }
}

@Suite("Command-line overrides", .ownThreads)
struct OverrideTests {
    @Test("Only the flags given replace file values")
    func merge() throws {
        var file = DaemonConfiguration()
        file.gnss.host = "from-file"
        file.gnss.port = 3000
        let merged = try file.merging(ConfigurationOverrides(gnssPort: 4000, logLevel: .debug))
        #expect(merged.gnss.host == "from-file")
        #expect(merged.gnss.port == 4000)
        #expect(merged.log.level == .debug)
        var expected = file
        expected.gnss.port = 4000
        expected.log.level = .debug
        #expect(merged == expected)
        #expect(try file.merging(ConfigurationOverrides()) == file)
    }

    @Test("Bad flag values are named by flag")
    func badFlags() throws {
        let error = try #require(throws: ConfigurationError.self) {
            try DaemonConfiguration().merging(ConfigurationOverrides(gnssPort: 0, storePath: "", hubURL: "nope"))
        }
        #expect(error.problems.map(\.file) == ["--gpsd-port", "--db", "--hub"])
        #expect(error.problems[1].reason == "must not be empty")
    }

    @Test("A flag is refused by its key's own rule, with the file's words")
    func flagsTakeTheKeysRule() throws {
        let longPath = "/" + String(repeating: "a/", count: 50_000)
        let bel = "http://hub\u{07}.example.org"
        var problems: [ConfigurationProblem] = []
        do {
            _ = try DaemonConfiguration().merging(
                ConfigurationOverrides(gnssPort: 70000, imuRateHz: 5000, storePath: longPath, hubURL: bel, statusSocket: "/run/a\u{1B}b"))
        } catch {
            problems = error.problems
        }
        try #require(problems.map(\.file) == ["--gpsd-port", "--imu-rate", "--db", "--hub", "--status-socket"])
        // The same value in the file: the same reason, word for word (one rule, ConfigurationKey.all).
        func fileReason(_ section: String, _ key: String, _ value: String) -> String {
            ConfigurationTests.problem("[\(section)]\n\(key) = \(value)").split(separator: ": ", maxSplits: 1).last.map(String.init)
                ?? ""
        }
        #expect(problems[0].reason == fileReason("gnss", "port", "70000"))
        #expect(problems[1].reason == fileReason("imu", "rate_hz", "5000"))
        #expect(problems[2].reason == fileReason("store", "path", "\"\(longPath)\""))
        #expect(problems[3].reason == fileReason("sync", "hub_url", #""http://hub\u0007.example.org""#))
        #expect(problems[4].reason == "contains the control character U+001B at character 7; a path holds none")
    }

    @Test("A relative --db or --status-socket is the working directory's; the file's paths stay absolute")
    func relativeFlagPaths() throws {
        let cwd = FileManager.default.currentDirectoryPath
        let merged = try DaemonConfiguration().merging(ConfigurationOverrides(storePath: "s.sqlite", statusSocket: "./run/../st.sock"))
        #expect(merged.store.path == cwd + "/s.sqlite" && merged.status.socket == cwd + "/st.sock")
        #expect(CommandLinePath.resolve("a/../b/./c.db", against: "/home/rider/") == "/home/rider/b/c.db")
        #expect(CommandLinePath.resolve("/abs.db", against: "/x") == "/abs.db")
        #expect(CommandLinePath.resolve("@abstract", against: "/x") == "@abstract")
        let error = try #require(throws: ConfigurationError.self) { try ConfigurationLoader.parse("[store]\npath = \"s.db\"\n", file: "f") }
        #expect(error.problems.first?.reason.contains("the configuration file takes absolute paths only") == true)
    }
}

@Suite("SIGHUP: what a reload cannot apply is said", .ownThreads)
struct ReloadRestartTests {
    /// `obstacles.review_budget` and `milestones` are read once, when the store opens: a
    /// reload that changed them must say so. Chain and sensor settings apply.
    @Test func eachChangedKeyIsNamedWithWhenItApplies() {
        let current = DaemonConfiguration()
        var fresh = current
        fresh.obstacles.reviewBudget += 3
        fresh.milestones.everyKm += 50
        fresh.review.listen = "0.0.0.0:18084"
        fresh.trip.endAfterS += 60
        fresh.gnss.port = 3000
        #expect(
            ConfigurationReloader.report(ConfigurationKey.changed(from: current, to: fresh))
                == "chain settings apply when no trip is under way (trip.end_after_s); sensors at once (gnss.port); "
                + "at the next restart only (obstacles.review_budget, milestones.every_km, review.listen)")
        #expect(ConfigurationKey.changed(from: current, to: current).isEmpty)
    }

    /// Every key has one declaration: distinct paths, each section known.
    @Test func everyKeyIsDeclaredOnce() {
        let paths = ConfigurationKey.all.map(\.path)
        #expect(Set(paths).count == paths.count)
        #expect(ConfigurationKey.all.allSatisfy { ConfigurationKey.sections.contains($0.section) })
    }
}
