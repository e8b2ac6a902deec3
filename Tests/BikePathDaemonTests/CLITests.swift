import Foundation
import BikePathTestSupport
import Testing
@testable import BikePathDaemon

/// The built `bikepathd` next to the test bundle (`swift build --build-tests` builds it).
enum Binary {
    static let url: URL? = builtExecutable("bikepathd").map(URL.init(fileURLWithPath:))
    static var available: Bool { url != nil }
    static func require() throws -> URL {
        guard let url else { throw POSIXError(.ENOENT) }
        return url
    }
}

/// Runs bikepathd to completion; stdout and stderr apart.
func runBikepathd(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
    let result = try runProcess(try Binary.require().path, arguments)
    return (result.status, result.out, result.err)
}

@Suite("bikepathd config, status, tail commands", .enabled(if: Binary.available, "needs the built bikepathd"), .ownThreads)
struct CLITests {
    @Test("config check: every problem on stderr as FILE:LINE: KEY: REASON, exit 78")
    func configCheck() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/bad.toml"
        try Repository.fixture("bad.toml").write(toFile: file, atomically: true, encoding: .utf8)
        let bad = try runBikepathd(["config", "check", file])
        #expect(bad.status == 78)
        let lines = bad.stderr.split(separator: "\n")
        #expect(lines.count == 9)
        #expect(lines.first == "\(file):4: gnss.port: 70000 is out of range 1...65535")
        #expect(lines.last == "\(file):32: colour: unknown key")
        let good = try runBikepathd(["config", "check", Repository.root.appendingPathComponent("systemd/bikepathd.toml").path])
        #expect(good.status == 0)
        #expect(good.stdout.hasSuffix(": ok\n"))
    }

    /// `config check` of `text` written to a file of its own: the file's path, the exit status, stderr.
    private func configCheck(_ text: String) throws -> (file: String, status: Int32, stderr: String) {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/c.toml"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let checked = try runBikepathd(["config", "check", file])
        return (file, checked.status, checked.stderr)
    }

    @Test(
        "config check: headers and brackets that abort the TOML library are refused with their line, exit 78",
        arguments: [
            ("[é]\n", 1), ("\u{FEFF}[\nb = 1\n", 1), ("# ok\n[ !]\n", 2), ("[[=]]\n", 1), ("[.a]\n", 1), ("a = 1\nb = [1, }\n", 2),
            ("[gnss]\nhost = [\n  \"x\",\n}\n", 4),
        ])
    func configCheckNeverAborts(text: String, line: Int) throws {
        let checked = try configCheck(text)
        #expect(checked.status == 78, "rc \(checked.status): \(checked.stderr)")
        #expect(checked.stderr.hasPrefix("\(checked.file):\(line): (syntax): "), "\(checked.stderr)")
    }

    @Test("config check: a '[' inside strings, multi-line strings and arrays is no header")
    func configCheckBracketsInValues() throws {
        let text = "[privacy]\n# [é]\ntrim_start_m = 100\n[sync]\nhub_url = \"\"\"\n[é]\"\"\"\n"
        #expect(TOMLPrescan.check(text) == nil)
        #expect(TOMLPrescan.check("a = [\n  [1, 2],\n  { b = '[!' },\n]\n") == nil)
        #expect(TOMLPrescan.check("a = \"[\\\"}\"\n[b]\n") == nil)
        #expect(TOMLPrescan.check("a = \"\\\\u0000\"\n") == nil, "an escaped backslash before u0000 is no NUL")
    }

    @Test(
        "config check: a NUL in a path (raw or \\u0000) is refused, not cut short",
        arguments: [
            "[store]\npath = \"/tmp/a\\u0000b\"\n", "[store]\npath = \"/tmp/a\\U00000000b\"\n", "[store]\npath = \"/tmp/a\u{0}b\"\n",
        ])
    func configCheckRefusesNUL(text: String) throws {
        let checked = try configCheck(text)
        #expect(checked.status == 78, "rc \(checked.status): \(checked.stderr)")
        #expect(checked.stderr.hasPrefix("\(checked.file):2: (syntax): ") && checked.stderr.contains("NUL"), "\(checked.stderr)")
    }

    @Test("config show: flags override the file; bad flags refuse")
    func configShow() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/c.toml"
        try "[gnss]\nhost = \"gps.local\"\nport = 3000\n".write(toFile: file, atomically: true, encoding: .utf8)
        let shown = try runBikepathd(["config", "show", "--config", file, "--gpsd-port", "4000"])
        #expect(shown.status == 0)
        let parsed = try ConfigurationLoader.parse(shown.stdout, file: "show")
        #expect(parsed.gnss.host == "gps.local")
        #expect(parsed.gnss.port == 4000)
        let json = try runBikepathd(["config", "show", "--config", file, "--json"])
        #expect(try JSONDecoder().decode(DaemonConfiguration.self, from: Data(json.stdout.utf8)).gnss.port == 3000)
        // A relative --db is the working directory's, as with any Unix tool (`run --db s.sqlite` is not refused).
        let relative = try runBikepathd(["config", "show", "--config", file, "--db", "relative.db", "--json"])
        #expect(relative.status == 0, "\(relative.stderr)")
        let cwd = FileManager.default.currentDirectoryPath
        #expect(try JSONDecoder().decode(DaemonConfiguration.self, from: Data(relative.stdout.utf8)).store.path == cwd + "/relative.db")
        // The file keeps absolute paths, and says why and what to do.
        let relativeFile = directory + "/relative.toml"
        try "[store]\npath = \"relative.db\"\n".write(toFile: relativeFile, atomically: true, encoding: .utf8)
        let refused = try runBikepathd(["config", "check", relativeFile])
        #expect(refused.status == 78)
        #expect(
            refused.stderr.contains("\"relative.db\" is relative; the configuration file takes absolute paths only"), "\(refused.stderr)")
        #expect(refused.stderr.contains("write it from /"), "\(refused.stderr)")
        // The old spellings still work (an installed unit or a script must not break) but are not shown.
        let old = try runBikepathd([
            "config", "show", "--config", file, "--store", "/tmp/old.db", "--hub-url", "https://hub.example.org", "--json",
        ])
        let oldShown = try JSONDecoder().decode(DaemonConfiguration.self, from: Data(old.stdout.utf8))
        #expect(oldShown.store.path == "/tmp/old.db" && oldShown.sync.hubURL == "https://hub.example.org")
        // $BIKEPATHD_DB is the store of run (and config show) as of every command: below --db, above store.path.
        let binary = try Binary.require().path
        let fromEnvironment = try runProcess(
            "/usr/bin/env", ["BIKEPATHD_DB=/tmp/from-env.db", binary, "config", "show", "--config", file, "--json"])
        #expect(try JSONDecoder().decode(DaemonConfiguration.self, from: Data(fromEnvironment.out.utf8)).store.path == "/tmp/from-env.db")
        let fromFlag = try runProcess(
            "/usr/bin/env", ["BIKEPATHD_DB=/tmp/from-env.db", binary, "config", "show", "--config", file, "--db", "/tmp/flag.db", "--json"])
        #expect(try JSONDecoder().decode(DaemonConfiguration.self, from: Data(fromFlag.out.utf8)).store.path == "/tmp/flag.db")
        let help = try runBikepathd(["run", "--help"])
        #expect(help.stdout.contains("--db <path>") && help.stdout.contains("--hub <url>"))
        #expect(!help.stdout.contains("--store") && !help.stdout.contains("--hub-url"))
    }

    @Test("status asks a live server; text and --json")
    func status() throws {
        let f = try ServerFixture()
        defer { f.finish() }
        let json = try runBikepathd(["status", "--socket", f.path, "--json"])
        #expect(json.status == 0)
        #expect(try StatusJSON.decode(DaemonStatus.self, from: json.stdout.trimmingCharacters(in: .newlines)) == sampleStatus)
        let text = try runBikepathd(["status", "--socket", f.path])
        #expect(text.stdout == sampleStatus.humanReadable() + "\n")
        let none = try runBikepathd(["status", "--socket", f.directory + "/none.sock"])
        #expect(none.status != 0)
        #expect(none.stderr.contains("no bikepathd answers on"))
    }

    @Test("tail --json prints published events as they come, and ends when the daemon stops")
    func tail() throws {
        let f = try ServerFixture()
        var finished = false
        defer { if !finished { f.finish() } }
        let scratch = try TempDir()
        defer { scratch.cleanup() }
        let output = URL(fileURLWithPath: scratch.file("tail.out"))
        let process = try ChildProcess(
            try Binary.require().path, ["tail", "--json", "--socket", f.path], output: output,
            errorOutput: URL(fileURLWithPath: "/dev/null"))
        try #require(pollUntil { f.server.tailClientCount >= 1 }, "the tail client subscribed")
        let events = (1...3).map {
            DaemonEvent(
                time: "2026-11-21T14:00:0\($0).000Z", kind: "obstacle", message: "bump \($0)",
                fields: ["peak_mps2": "4.5", "trip": "1234"])
        }
        for e in events { f.server.publish(e) }
        // Stopping the server closes the stream: tail exits by itself.
        usleep(100_000)
        f.finish()
        finished = true
        #expect(process.waitForExit(timeout: 30) == 0, "tail ended by itself when the daemon stopped")
        let lines = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n").map(String.init)
        // docs/json.md: schema 1, `type` and `utc`, numbers as numbers where the key names a unit, ids stay text.
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.count == events.count)
        for (object, event) in zip(objects, events) {
            #expect(object["schema"] as? Int == 1 && object["type"] as? String == event.kind)
            #expect(object["utc"] as? String == event.time && object["message"] as? String == event.message)
            #expect(object["peak_mps2"] as? Double == 4.5 && object["trip"] as? String == "1234", "\(object)")
        }
    }
}
