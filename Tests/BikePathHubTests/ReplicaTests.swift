import AsyncHTTPClient
import BikePathAPI
import BikePathTestSupport
import Foundation
import NIOCore
import Testing

/// A `bikepath-hub` process, stopped by its pid.
final class HubChild: Sendable {
    let process: ChildProcess
    let port: Int
    var url: String { "http://127.0.0.1:\(port)" }

    init(_ arguments: [String], log: String) async throws {
        guard let exe = builtExecutable("bikepath-hub") else { throw TestFailure(description: "bikepath-hub is not built") }
        process = try ChildProcess(exe, ["serve", "--port", "0"] + arguments, output: URL(fileURLWithPath: log))
        for _ in 0..<600 {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("bikepath-hub listening on") }),
                let p = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                port = p
                return
            }
            if process.waitForExit(timeout: 0) != nil { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.stop(signal: SIGKILL)
        throw TestFailure(description: "the hub did not start: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}

/// Two hub processes on one PostgreSQL database behave as one: the same uploads sent
/// through both are stored exactly once, and a replica killed mid-load loses nothing it
/// acknowledged.
@Suite(.serialized, .ownThreads) struct ReplicaTests {
    static let devices = ["bike-1", "bike-2", "bike-3"]
    static func token(_ device: String) -> String { "replica-token-\(device)-0123456789" }

    /// `count` batches of 20 trips for `device`.
    static func batches(_ device: String, count: Int, from first: Int = 0) -> [BatchRequest] {
        (first..<first + count).map { b in
            BatchRequest(
                records: (0..<20).map { i in
                    let id = "\(device)-T\(b * 20 + i)"
                    return .init(id: id, body: .trip(Fixtures.trip(id)))
                })
        }
    }

    static func send(_ http: HTTPClient, _ hub: String, _ device: String, _ batch: BatchRequest) async throws -> [RecordResult] {
        var request = HTTPClientRequest(url: hub + "/v1/batch")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token(device))")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try WireJSON.encode(batch)))
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 22)
        guard response.status == .ok else { throw TestFailure(description: "batch answered \(response.status)") }
        return try JSONDecoder().decode(BatchResponse.self, from: Data(body.readableBytesView)).results
    }

    @Test(.enabled(if: Backend.available.contains(.postgres)), .timeLimitOnceRunning(.minutes(5)))
    func twoReplicasOneDatabaseStoreEachRecordOnce() async throws {
        let cluster = try PostgresCluster.shared.get()
        let url = try cluster.createDatabase()
        let dir = try TempDir()
        defer { dir.cleanup() }
        let hub = try #require(builtExecutable("bikepath-hub"))
        // Two replicas migrating at once take turns (advisory lock): both succeed, one schema.
        async let m1 = Task.detached { try runProcess(hub, ["migrate", "--database", url]) }.value
        async let m2 = Task.detached { try runProcess(hub, ["migrate", "--database", url]) }.value
        let (r1, r2) = try await (m1, m2)
        #expect(r1.status == 0 && r2.status == 0, "\(r1.err) \(r2.err)")
        #expect(
            r1.out
                == "schema versions: v1, v2-token-manager, v3-map-tiles, v4-path-network, v5-map-claims, v6-map-edition, v7-map-evidence, "
                + "v8-network-lease, v9-update-room, v10-map-attempts, v11-snake-case-bodies, v12-one-schema, "
                + "v13-streets, v14-places, v15-street-evidence, v16-manual-paths, v17-routing-version, v18-routing-obstacles, "
                + "v19-street-backlog, v20-place-keys\n")
        for d in Self.devices {
            let file = dir.file("token-\(d)")
            _ = FileManager.default.createFile(atPath: file, contents: Data(Self.token(d).utf8), attributes: [.posixPermissions: 0o600])
            #expect(try await runProcess(hub, ["token", "add", "--database", url, "--device", d, "--token-file", file]).status == 0)
        }
        #expect(
            try await runProcess(hub, ["token", "list", "--database", url]).out
                == "bike-1 allowed command\nbike-2 allowed command\nbike-3 allowed command\n")

        // No rate limit: bike-1 resends 2,000 records through B at once, twice the burst of
        // records a device may send (the limit is tested in ContractMismatchTests).
        let a = try await HubChild(["--database", url, "--device-rate", "0"], log: dir.file("a.log"))
        let b = try await HubChild(["--database", url, "--device-rate", "0"], log: dir.file("b.log"))
        defer { a.process.stop(signal: SIGKILL); b.process.stop(signal: SIGKILL) }
        let http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup)
        do {
            // The same batches through both replicas at the same moment.
            try await withThrowingTaskGroup(of: [[RecordResult]].self) { group in
                for d in Self.devices {
                    for batch in Self.batches(d, count: 5) {
                        group.addTask {
                            async let x = Self.send(http, a.url, d, batch)
                            async let y = Self.send(http, b.url, d, batch)
                            return try await [x, y]
                        }
                    }
                }
                for try await pair in group {
                    for (x, y) in zip(pair[0], pair[1]) {
                        #expect(Set([x.outcome, y.outcome]) == [.created, .duplicate], "\(x.id): \(x.outcome) and \(y.outcome)")
                    }
                }
            }
            #expect(try cluster.psql("SELECT count(*) FROM records", database: Self.database(url)) == "300\n")

            // Replica A is killed -9 while it stores; the device then sends everything again through B.
            var acknowledged = Set<String>()
            let load = Self.batches("bike-1", count: 100, from: 100)
            let killer = Task.detached {
                try await Task.sleep(for: .milliseconds(300))
                a.process.stop(signal: SIGKILL)
            }
            for batch in load {
                guard let results = try? await Self.send(http, a.url, "bike-1", batch) else { break }
                acknowledged.formUnion(results.filter { $0.status < 300 }.map(\.id))
            }
            try await killer.value
            #expect(!acknowledged.isEmpty && acknowledged.count < 2000, "the kill came mid-load (\(acknowledged.count) acknowledged)")
            for batch in load {
                for r in try await Self.send(http, b.url, "bike-1", batch) {
                    #expect(r.status < 300, "\(r.id)")
                    if acknowledged.contains(r.id) { #expect(r.outcome == .duplicate, "\(r.id) was acknowledged by A, so it is held") }
                }
            }
            let counts = try cluster.psql(
                "SELECT count(*), count(DISTINCT (device_id, kind, id)) FROM records", database: Self.database(url))
            #expect(counts == "2300|2300\n")
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func database(_ url: String) -> String {
        String(URLComponents(string: url)!.path.dropFirst())
    }
}
