import AsyncHTTPClient
import BikePathAPI
import BikePathDeviceTestSupport
import BikePathTestSupport
import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1
import Testing

/// The hub's side of an adversarial pass: each break it found, against the real hub
/// process on loopback. Load is bounded: at most 151 connections and 8 large
/// requests, each test under its own time limit.
@Suite(.serialized, .ownThreads) struct HubHardeningTests {
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var error: String? { (try? JSONDecoder().decode(ErrorBody.self, from: body))?.error }
        var result: RecordResult? { try? JSONDecoder().decode(RecordResult.self, from: body) }
    }

    static func send(
        _ http: HTTPClient, _ url: String, method: HTTPMethod = .PUT, token: String? = Device.token,
        body: Data, gzip: Bool = true, encoding: String? = nil, authorization: String? = nil,
        contentType: String? = "application/json", timeout: Int64 = 10
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let contentType, method != .GET { request.headers.add(name: "Content-Type", value: contentType) }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        var buffer = ByteBuffer(bytes: body)
        if gzip {
            buffer = try buffer.compress(with: .gzip)
            request.headers.add(name: "Content-Encoding", value: "gzip")
        }
        if let encoding { request.headers.add(name: "Content-Encoding", value: encoding) }
        request.body = .bytes(buffer)
        let response = try await http.execute(request, timeout: .seconds(timeout))
        let data = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(data.readableBytesView))
    }

    static let trip = TripUpload(
        id: "TRIP-1", startUtcNs: 1_790_000_000_000_000_000, endUtcNs: 1_790_000_600_000_000_000,
        statistics: Fixtures.stats)

    // MARK: 1. Revocation outlives restarts and the tokens file

    @Test(.timeLimitOnceRunning(.minutes(3))) func revocationOutlivesRestartsAndTheTokensFile() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hubExe = try #require(builtExecutable("bikepath-hub"))
        let token2 = "second-device-token-0123", token3 = "third-device-token-01234"
        try Self.writeSecret(device.tokensFile, "bike-1 \(Device.token)\nbike-2 \(token2)\n")
        let log = device.dir.file("hub.log")
        try await Self.withHTTP { http in
            var hub = try device.hub()
            #expect(try await Self.putTrip(http, hub, token: Device.token).status == 201)
            #expect(try await Self.putTrip(http, hub, token: token2).status == 201)
            // While it runs: bike-1 revoked, bike-3 issued with the command; then bike-2 leaves the file.
            #expect(try await runProcess(hubExe, ["token", "revoke", "--db", device.hubDB, "--device", "bike-1"]).status == 0)
            let file3 = device.dir.file("token3")
            try Self.writeSecret(file3, token3)
            #expect(
                try await runProcess(hubExe, ["token", "add", "--db", device.hubDB, "--device", "bike-3", "--token-file", file3]).status
                    == 0)
            hub.stop()
            try Self.writeSecret(device.tokensFile, "bike-1 \(Device.token)\n")
            hub = try device.hub(stderr: log)
            #expect(
                try await Self.putTrip(http, hub, token: Device.token).error == "token-revoked", "a revoked device came back on restart")
            #expect(try await Self.putTrip(http, hub, token: token2).error == "token-revoked", "a device that left the file kept access")
            #expect(try await Self.putTrip(http, hub, token: token3).status == 201, "a device issued with the command keeps access")
            let text = try String(contentsOfFile: log, encoding: .utf8)
            #expect(text.contains("revoked, no longer in the file: bike-2"))
            #expect(text.contains("still revoked") && text.contains("bike-1"))
            #expect(text.contains("still allowed") && text.contains("bike-3"))
            #expect(!text.contains(Device.token) && !text.contains(token2) && !text.contains(token3))

            // A new token in the file does not restore bike-1 either; only the command does, and then it owns bike-1.
            hub.stop()
            let fileToken = "bike-one-file-token-01234"
            try Self.writeSecret(device.tokensFile, "bike-1 \(fileToken)\n")
            hub = try device.hub()
            #expect(try await Self.putTrip(http, hub, token: fileToken).status == 401)
            let issued = "bike-one-issued-token-0123"
            try Self.writeSecret(file3, issued)
            #expect(
                try await runProcess(hubExe, ["token", "add", "--db", device.hubDB, "--device", "bike-1", "--token-file", file3]).status
                    == 0)
            #expect(try await Self.putTrip(http, hub, token: issued).status == 200, "bike-1's trip is already held: identical")
            hub.stop()
            hub = try device.hub()
            #expect(
                try await Self.putTrip(http, hub, token: issued).status == 200, "the file's stale line does not replace an issued token")
            #expect(try await Self.putTrip(http, hub, token: fileToken).status == 401)
            hub.stop()
        }
    }

    // MARK: 5. Decompression amplification

    @Test(.timeLimitOnceRunning(.minutes(3))) func inflationBombsAreRefusedWhileHealthAnswers() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        // 20 MB of `[0,0],` (≈ 10 million values) is inside the 32 MiB inflated limit but far past
        // the value limit; 40 MB is past the inflated limit. Both are ~40 KB of gzip on the wire.
        let manyValues = try Self.gzip(Self.zeroPairs(bytes: 20_000_000))
        let tooLarge = try Self.gzip(Self.zeroPairs(bytes: 40_000_000))
        #expect(manyValues.count < 100_000 && tooLarge.count < 100_000)
        let url = hub.url + "/v1/batch"
        try await Self.withHTTP { http in
            let started = ContinuousClock.now
            let over = try await Self.send(http, url, method: .POST, body: tooLarge, gzip: false, encoding: "gzip", timeout: 30)
            #expect(over.status == 413 && over.error == "too-large")
            let many = try await Self.send(
                http, url, method: .POST, body: manyValues, gzip: false, encoding: "gzip", timeout: 30)
            #expect(many.status == 413 && many.error == "too-many-values")
            #expect(ContinuousClock.now - started < .seconds(10), "refused without decoding")

            // Six at once (~1 s of a worker thread each in a debug build), while a second client probes the health check.
            let bombs = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<6 {
                        group.addTask {
                            try await Self.send(
                                http, url, method: .POST, body: manyValues, gzip: false, encoding: "gzip", timeout: 60
                            ).status
                        }
                    }
                    return try await group.reduce(into: [Int]()) { $0.append($1) }
                }
            }
            try await Self.withHTTP { probe in
                var slowest = Duration.zero
                for _ in 0..<10 {
                    let t0 = ContinuousClock.now
                    let health = try await Self.send(
                        probe, hub.url + "/v1/health", method: .GET, token: nil, body: Data(), gzip: false)
                    #expect(health.status == 200)
                    slowest = max(slowest, ContinuousClock.now - t0)
                    try await Task.sleep(for: .milliseconds(100))
                }
                // On main: 5.6 s alone, 27 s with 12 bombs; here ~0.1 s alone, bounded for a loaded CI machine.
                #expect(slowest < .seconds(3), "health took \(slowest) while bombs were decoded")
            }
            let statuses = try await bombs.value
            #expect(statuses.count == 6 && statuses.allSatisfy { $0 == 413 || $0 == 503 }, "\(statuses)")
        }
    }

    // MARK: 6. Idle connections, slow heads, oversized heads, descriptor exhaustion

    @Test(.timeLimitOnceRunning(.minutes(2))) func halfSentAndIdleConnectionsAreClosed() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--header-timeout", "1", "--idle-timeout", "2"])
        defer { hub.stop() }

        let half = try RawConnection(port: hub.port, timeout: 8)
        var t0 = Date()
        try half.send("PUT /v1/trips/T HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Device.token)\r\n")
        #expect(half.readUntilClosed().closed, "a half-sent head kept its connection")
        #expect(Date().timeIntervalSince(t0) < 4)

        // One byte every 0.3 s: the head is never complete, the header timeout still applies.
        let trickle = try RawConnection(port: hub.port, timeout: 8)
        t0 = Date()
        var closedAfter: Double?
        for byte in "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" where Date().timeIntervalSince(t0) < 6 {
            do { try trickle.send(String(byte)) } catch { closedAfter = Date().timeIntervalSince(t0); break }
            usleep(300_000)
        }
        #expect(
            closedAfter.map { $0 < 4 } == true, "a trickled head kept its connection (closed after \(String(describing: closedAfter)) s)")

        // A kept-alive connection after a full exchange: closed after the idle timeout.
        let idle = try RawConnection(port: hub.port, timeout: 8)
        try idle.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(idle.readStatus() == 200)
        t0 = Date()
        #expect(idle.readUntilClosed().closed, "an idle connection was kept")
        let idleFor = Date().timeIntervalSince(t0)
        #expect(idleFor > 1.5 && idleFor < 5, "closed after \(idleFor) s, the idle timeout is 2 s")
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func idleConnectionsCannotLockOutAFreshClient() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        // 128 descriptors: on main, ~100 idle connections exhaust them and the hub stops accepting.
        let hub = try device.hub(extra: ["--header-timeout", "2"], fileLimit: 128)
        defer { hub.stop() }
        let idle = try (0..<150).map { _ in try RawConnection(port: hub.port, timeout: 20) }
        // Another client (address): 127.0.0.1 holds its share, and more of its connections are closed at once.
        let fresh = try RawConnection(port: hub.port, timeout: 20, source: "127.0.0.2")
        let t0 = Date()
        try fresh.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(fresh.readStatus() == 200, "a fresh client got no answer behind \(idle.count) idle connections")
        #expect(Date().timeIntervalSince(t0) < 15)
    }

    /// A body trickled one byte every 0.3 s is cut at the body deadline: every byte used to
    /// reset the idle timer, so a connection lived as long as its sender liked.
    @Test(.timeLimitOnceRunning(.minutes(2))) func aTrickledBodyIsCutAtTheBodyDeadline() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub(extra: ["--body-timeout", "2", "--idle-timeout", "2"])
        defer { hub.stop() }
        let trickle = try RawConnection(port: hub.port, timeout: 10)
        try trickle.send(
            "PUT /v1/trips/T HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Device.token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        let t0 = Date()
        var closedAfter: Double?
        while Date().timeIntervalSince(t0) < 8 {
            do { try trickle.send("{") } catch { closedAfter = Date().timeIntervalSince(t0); break }
            usleep(300_000)
        }
        #expect(
            closedAfter.map { $0 < 4.5 } == true, "a trickled body kept its connection (closed after \(String(describing: closedAfter)) s)")
    }

    /// 150 connections of one client trickling bodies take its share (64), not the hub:
    /// another client's health check is answered at once (it waited 40 s).
    @Test(.timeLimitOnceRunning(.minutes(2))) func oneClientsTricklesCannotStarveAnother() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        var slow: [RawConnection] = []
        for _ in 0..<150 {
            let c = try RawConnection(port: hub.port, timeout: 20)
            try? c.send(
                "PUT /v1/trips/T HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(Device.token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
            slow.append(c)
        }
        for c in slow { try? c.send(" ") }
        let other = try RawConnection(port: hub.port, timeout: 20, source: "127.0.0.2")
        let t0 = Date()
        try other.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(other.readStatus() == 200, "another client got no answer behind \(slow.count) trickling connections")
        #expect(Date().timeIntervalSince(t0) < 3)
        // The 64 the first client holds stay open; the rest were closed at once.
        let open = slow.filter { c in (try? c.send(" ")) != nil && (try? c.send(" ")) != nil }.count
        #expect(open <= 64, "\(open) connections of one address are open; its share is 64")
    }

    @Test(.timeLimitOnceRunning(.minutes(2))) func oversizedHeadsAreAnswered431() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        let oneBigField = try RawConnection(port: hub.port)
        try oneBigField.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        #expect(oneBigField.readStatus() == 431)
        let manyFields = try RawConnection(port: hub.port)
        let fields = (0..<200).map { "X-F\($0): 1\r\n" }.joined()
        try manyFields.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n")
        #expect(manyFields.readStatus() == 431)
        let normal = try RawConnection(port: hub.port)
        try normal.send("GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(normal.readStatus() == 200)
    }

    // MARK: 13. Strict bodies, case-insensitive scheme, canonical numbers

    @Test(.timeLimitOnceRunning(.minutes(2))) func bodiesAreReadStrictly() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        defer { hub.stop() }
        try await Self.withHTTP { http in
            let url = hub.url + "/v1/trips/TRIP-1"
            let gz = try Self.gzip(try WireJSON.encode(Self.trip))
            let truncated = try await Self.send(http, url, body: gz.dropLast(8), gzip: false, encoding: "gzip")
            #expect(truncated.status == 400 && truncated.error == "bad-gzip", "a gzip body without its trailer was accepted")
            let junk = try await Self.send(http, url, body: gz + Data("junk".utf8), gzip: false, encoding: "gzip")
            #expect(junk.status == 400 && junk.error == "bad-gzip", "bytes after the gzip trailer were accepted")
            let twice = try await Self.send(http, url, body: gz + gz, gzip: false, encoding: "gzip")
            #expect(twice.status == 400 && twice.error == "bad-gzip")
            #expect(try hub.records().isEmpty)

            let lower = try await Self.send(
                http, url, token: nil, body: try WireJSON.encode(Self.trip),
                authorization: "bearer \(Device.token)")
            #expect(lower.status == 201, "the Bearer scheme is case-insensitive")

            let text = String(decoding: try WireJSON.encode(Self.zeroTrip), as: UTF8.self)
            let twoDistances = text.replacingOccurrences(of: #""statistics":{"#, with: #""statistics":{"distance_m":5,"#)
            let duplicate = try await Self.send(http, hub.url + "/v1/trips/TRIP-Z", body: Data(twoDistances.utf8))
            #expect(duplicate.status == 400 && duplicate.error == "invalid-json", "a duplicate key was decoded")
            #expect(String(decoding: duplicate.body, as: UTF8.self).contains("distance_m"))

            #expect(try await Self.send(http, hub.url + "/v1/trips/TRIP-Z", body: Data(text.utf8)).status == 201)
            let negativeZero = text.replacingOccurrences(of: #""elevation_gain_m":0"#, with: #""elevation_gain_m":-0.0"#)
            #expect(negativeZero != text)
            let again = try await Self.send(http, hub.url + "/v1/trips/TRIP-Z", body: Data(negativeZero.utf8))
            #expect(again.status == 200 && again.result?.outcome == .duplicate, "-0.0 and 0 are the same number")
        }
    }

    // MARK: 10, 13. Private files, tokens checked at load and never printed

    @Test(.timeLimitOnceRunning(.minutes(2))) func hubFilesArePrivateAndTokensAreCheckedAtStart() async throws {
        let device = try await Device(trips: 1, seconds: 60)
        defer { device.dir.cleanup() }
        let hub = try device.hub()
        hub.stop()
        for file in [device.hubDB, device.hubDB + "-wal", device.hubDB + "-shm"] where FileManager.default.fileExists(atPath: file) {
            #expect(Self.mode(file) == 0o600, "\(file) has mode \(String(Self.mode(file), radix: 8))")
        }

        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: device.tokensFile)
        let open = try Self.serveOnce(device, tokens: device.tokensFile)
        #expect(open.status != nil && open.status != 0, "a tokens file readable by others was used")
        #expect(open.output.contains("mode 644") && !open.output.contains(Device.token))

        let secret = "secret-token\u{01}value-0123"
        try Self.writeSecret(device.tokensFile, "# fleet\nbike-1 \(secret)\n")
        let control = try Self.serveOnce(device, tokens: device.tokensFile)
        #expect(control.status != nil && control.status != 0, "a token with a control byte was loaded")
        #expect(control.output.contains(":2:") && control.output.contains("0x1"))
        #expect(!control.output.contains("secret-token") && !control.output.contains("value-0123"))
    }

    // MARK: Helpers

    static let zeroTrip = TripUpload(
        id: "TRIP-Z", startUtcNs: 1_790_000_000_000_000_000, endUtcNs: 1_790_000_600_000_000_000,
        statistics: TripStatisticsUpload(
            distanceM: 1000, elapsedS: 300, movingS: 290, avgMovingSpeed: 3.4,
            maxSpeed: 7, elevationGainM: 0, co2AvoidedG: 120))

    static func putTrip(_ http: HTTPClient, _ hub: HubProcess, token: String) async throws -> Answer {
        try await Self.send(http, hub.url + "/v1/trips/TRIP-1", token: token, body: try WireJSON.encode(Self.trip))
    }

    static func withHTTP(_ body: (HTTPClient) async throws -> Void) async throws {
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            try await body(http)
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func writeSecret(_ path: String, _ text: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw TestFailure(description: "cannot write \(path)")
        }
    }

    static func mode(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? -1
    }

    static func gzip(_ data: Data) throws -> Data {
        var buffer = ByteBuffer(bytes: data)
        return Data(try buffer.compress(with: .gzip).readableBytesView)
    }

    /// `[[0,0],[0,0],…]` of about `bytes` bytes.
    static func zeroPairs(bytes: Int) -> Data {
        let block = Data(String(repeating: "[0,0],", count: 10_000).utf8)
        var data = Data("[".utf8)
        data.reserveCapacity(bytes + block.count)
        while data.count < bytes { data.append(block) }
        data.append(Data("[0,0]]".utf8))
        return data
    }

    /// `serve` with a fresh database, expected to refuse to start: its exit status (nil if it
    /// was still running after 10 s, then stopped) and what it printed.
    static func serveOnce(_ device: Device, tokens: String) throws -> (status: Int32?, output: String) {
        let hubExe = try #require(builtExecutable("bikepath-hub"))
        let output = URL(fileURLWithPath: device.dir.file("serve-\(UUID().uuidString).log"))
        let child = try ChildProcess(
            hubExe, ["serve", "--port", "0", "--db", device.dir.file("other.sqlite"), "--tokens", tokens], output: output)
        let status = child.waitForExit(timeout: 10)
        if status == nil { child.stop() }
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }
}
