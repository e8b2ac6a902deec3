import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A confirmation wakes sync: with `sync.interval_s` at 300 s, a ride confirmed while the daemon
/// runs does not wait out the interval; `drafts confirm` asks the daemon through its status socket
/// and the confirmation reaches the hub within seconds. A real `bikepath-hub`, a
/// real `bikepathd run` (replaying the bundled ride at real time, so it keeps running) and the CLI.
@Suite(.ownThreads, .timeLimitOnceRunning(.minutes(3))) struct ConfirmWakesSyncTests {
    private let recording = packageRoot + "/Recordings/allthedocks-GX010056.bpr"

    private func confirmations(_ hub: HubProcess) -> Int {
        ((try? hub.records()) ?? []).filter { $0.kind == "confirmation" }.count
    }

    @Test("drafts confirm, with the daemon running, gets the ride to the hub within seconds")
    func confirmationLeavesAtOnce() async throws {
        let bin = try #require(bikepathdPath())
        let device = try await Device(trips: 4, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let config = try Self.configuration(of: device, hubURL: hub.url)
        let log = URL(fileURLWithPath: device.dir.file("run.log"))
        let daemon = try ChildProcess(
            bin, ["run", "--config", config, "--replay", recording, "--replay-speed", "1"], output: log, errorOutput: log)
        defer { daemon.stop(signal: SIGKILL) }
        // The daemon's first pass sends the pending drafts and trips; then it waits 300 s.
        let firstPass = await RealDaemons.wait(timeout: 60) { ((try? hub.records()) ?? []).contains { $0.kind == "trip" } }
        #expect(firstPass, "the first pass did not reach the hub: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        #expect(confirmations(hub) == 0)

        let started = Date()
        let confirm = try await runProcess(bin, ["drafts", "confirm", "1", "--config", config])
        #expect(confirm.status == 0, "\(confirm.err)")
        #expect(confirm.out.contains("the daemon is sending it to the hub now"), "\(confirm.out)")
        let arrived = await RealDaemons.wait(timeout: 20) { confirmations(hub) == 1 }
        let seconds = Date().timeIntervalSince(started)
        #expect(arrived && seconds < 20, "the confirmation took \(seconds) s (sync.interval_s is 300)")
        // `--json` says the same: the daemon was woken, nothing is waited for.
        let woken = try Self.json(try await runProcess(bin, ["drafts", "confirm", "3", "--config", config, "--json"]).out)
        #expect(woken["woken"] as? Bool == true && woken["waits_for"] == nil && woken["leaves"] == nil, "\(woken)")
        #expect(await RealDaemons.wait(timeout: 20) { confirmations(hub) == 2 }, "the second confirmation did not arrive")

        // `diagnose`'s outbox line and `sync status` count by the one rule.
        let status = try await runProcess(bin, ["sync", "status", "--config", config])
        #expect(status.out.contains("outbox: 0 waiting to send"), "\(status.out)")

        // With the daemon gone, the rider is told why the next one waits and what sends it.
        kill(daemon.pid, SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) != nil)
        let later = try await runProcess(bin, ["drafts", "confirm", "2", "--config", config])
        #expect(later.out.contains("no daemon answers on \(device.dir.file("st.sock"))"), "\(later.out)")
        #expect(later.out.contains("`bikepathd sync run --once`"), "\(later.out)")
        let laterJSON = try Self.json(try await runProcess(bin, ["drafts", "confirm", "4", "--config", config, "--json"]).out)
        #expect(laterJSON["woken"] as? Bool == false && laterJSON["waits_for"] as? String == "daemon", "\(laterJSON)")
        #expect((laterJSON["leaves"] as? String)?.contains("`bikepathd sync run --once`") == true, "\(laterJSON)")
    }

    /// `device`'s configuration file: its store, its hub and token, `sync.interval_s` (300 s by
    /// default: a confirmation that waited it out would fail the tests' 20 s), the status
    /// socket `drafts confirm` wakes the daemon through, then `more`.
    static func configuration(of device: Device, hubURL: String, intervalSeconds: Int? = 300, more: String = "") throws -> String {
        let file = device.dir.file("bikepathd.toml")
        try """
        [store]
        path = "\(device.dbPath)"
        [sync]
        hub_url = "\(hubURL)"
        token_file = "\(device.tokenFile)"
        \(intervalSeconds.map { "interval_s = \($0)\n" } ?? "")[status]
        socket = "\(device.dir.file("st.sock"))"
        \(more)
        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// `drafts confirm --json` says whether the daemon was woken and, when not,
    /// what the ride waits for and when it leaves; the text says the same in words. No daemon
    /// runs here: each case is the configuration's or the rider's.
    @Test("drafts confirm --json says what a confirmation waits for when no daemon was woken")
    func confirmSaysWhatItWaitsFor() async throws {
        let bin = try #require(bikepathdPath())
        let device = try await Device(trips: 6, seconds: 120, confirm: 0)
        defer { device.dir.cleanup() }
        let noHub = device.dir.file("none.toml")
        try "[store]\npath = \"\(device.dbPath)\"\n".write(toFile: noHub, atomically: true, encoding: .utf8)
        let withHub = try Self.configuration(of: device, hubURL: "http://127.0.0.1:1", intervalSeconds: nil)
        // Draft n confirmed with --json, draft n + 1 in the same case with the text.
        func confirm(_ n: Int, _ config: String) async throws -> (json: [String: Any], text: String) {
            let json = try await runProcess(bin, ["drafts", "confirm", "\(n)", "--config", config, "--json"])
            #expect(json.status == 0, "\(json.err)")
            let text = try await runProcess(bin, ["drafts", "confirm", "\(n + 1)", "--config", config])
            #expect(text.status == 0, "\(text.err)")
            return (try Self.json(json.out), text.out)
        }
        #expect(try await runProcess(bin, ["sync", "consent", "trips", "on", "--config", noHub]).status == 0)
        let hub = try await confirm(1, noHub)
        #expect(hub.json["woken"] as? Bool == false && hub.json["waits_for"] as? String == "hub", "\(hub.json)")
        #expect(hub.text.contains("no hub is configured") && hub.text.contains(hub.json["leaves"] as? String ?? "-"), "\(hub.text)")

        let daemon = try await confirm(3, withHub)
        #expect(daemon.json["waits_for"] as? String == "daemon" && daemon.json["woken"] as? Bool == false, "\(daemon.json)")
        #expect(daemon.text.contains(daemon.json["why"] as? String ?? "-"), "\(daemon.text)")

        #expect(try await runProcess(bin, ["sync", "consent", "trips", "off", "--config", withHub]).status == 0)
        let consent = try await confirm(5, withHub)
        #expect(consent.json["waits_for"] as? String == "consent", "\(consent.json)")
        #expect((consent.json["leaves"] as? String)?.contains("sync consent trips on") == true, "\(consent.json)")
        #expect(consent.text.contains("stays on this device"), "\(consent.text)")
    }

    /// A confirmation made on the review page of a real `bikepathd run` (paired
    /// with `review pair`'s code, its session cookie and CSRF token, as a phone does) wakes the
    /// daemon's sync, and the ride reaches a real hub within seconds although sync.interval_s is 300.
    @Test("the review page's confirm, on a running daemon, gets the ride to the hub within seconds")
    func pageConfirmationLeavesAtOnce() async throws {
        let bin = try #require(bikepathdPath())
        let device = try await Device(trips: 2, seconds: 300, confirm: 0)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let port = freeLoopbackPort()
        let config = try Self.configuration(of: device, hubURL: hub.url, more: "[review]\nlisten = \"127.0.0.1:\(port)\"\n")
        let id = try #require(
            (try Self.json(try await runProcess(bin, ["drafts", "list", "--config", config, "--json"]).out)["drafts"] as? [[String: Any]])?
                .first?["id"] as? String)
        let log = URL(fileURLWithPath: device.dir.file("run.log"))
        let daemon = try ChildProcess(
            bin, ["run", "--config", config, "--replay", recording, "--replay-speed", "1"], output: log, errorOutput: log)
        defer { daemon.stop(signal: SIGKILL) }
        let firstPass = await RealDaemons.wait(timeout: 60) { ((try? hub.records()) ?? []).contains { $0.kind == "trip" } }
        #expect(firstPass, "the first pass did not reach the hub: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
        #expect(confirmations(hub) == 0)

        // As the phone does: the code typed on /pair, the session cookie, the form's CSRF token.
        let code = try #require(
            try Self.json(try await runProcess(bin, ["review", "pair", "--config", config, "--json"]).out)["code"] as? String)
        func http(_ method: String, _ path: String, cookie: String? = nil, form: String? = nil) throws -> String {
            let connection = try RawConnection(port: port)
            var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            if let cookie { head += "Cookie: \(cookie)\r\n" }
            if let form {
                head += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n"
            }
            try connection.send(head + "\r\n" + (form ?? ""))
            return connection.readUntilClosed().text
        }
        let paired = try http("POST", "/pair", form: "code=\(code)")
        let cookie = try #require(
            paired.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") }
                .map { String($0.dropFirst("set-cookie:".count).trimmingCharacters(in: .whitespaces).prefix { $0 != ";" }) }, "\(paired)")
        let page = try http("GET", "/drafts/\(id)", cookie: cookie)
        let csrf = try #require(
            page.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map {
                String(page[$0].dropFirst(#"name="csrf" value=""#.count).dropLast())
            }, "\(page.prefix(500))")

        let started = Date()
        let confirmed = try http("POST", "/drafts/\(id)/confirm", cookie: cookie, form: "csrf=\(csrf)")
        #expect(confirmed.hasPrefix("HTTP/1.1 303") && confirmed.contains("done=confirmed-sending"), "\(confirmed.prefix(500))")
        let arrived = await RealDaemons.wait(timeout: 20) { confirmations(hub) == 1 }
        let seconds = Date().timeIntervalSince(started)
        #expect(arrived && seconds < 20, "the page's confirmation took \(seconds) s (sync.interval_s is 300)")
        #expect(((try? hub.records()) ?? []).contains { $0.kind == "confirmation" && $0.id == id }, "the confirmed ride is \(id)")
    }
}
