import BikePathFixtures
import BikePathAPI
import BikePathCore
import BikePathStore
import BikePathSync
import Foundation
import BikePathTestSupport
import GRDB

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
}

/// A `bikepath-hub` subprocess on loopback, stopped by its own pid.
public final class HubProcess {
    public let process: ChildProcess
    public let dbPath: String
    public private(set) var port: Int = 0
    public var url: String { "http://127.0.0.1:\(port)" }
    /// Holds the hub's stdout (its "listening on" line).
    private let scratch: TempDir

    /// Starts the hub (the test-only `bikepath-hub-faults` when `extra` has `--test-*` switches) and waits (at most 30 s) for its "listening" line. `stderr` is a
    /// file for its log; `fileLimit` starts it under `ulimit -n`.
    /// `database` (a PostgreSQL URL) replaces the SQLite file `db`.
    public init(
        db: String, tokens: String, database: String? = nil, port: Int = 0, extra: [String] = [], stderr: String? = nil,
        fileLimit: Int? = nil
    ) throws {
        // The fault switches live in the test-only hub, never in the shipped one.
        let faulty = extra.contains { $0.hasPrefix("--test-") }
        let name = faulty ? "bikepath-hub-faults" : "bikepath-hub"
        guard let hub = builtExecutable(name) else { throw TestFailure(description: "\(name) is not built") }
        dbPath = db
        let storage = database.map { ["--database", $0] } ?? ["--db", db]
        let arguments = (faulty ? [] : ["serve"]) + ["--port", "\(port)"] + storage + ["--tokens", tokens] + extra
        scratch = try TempDir()
        let stdout = URL(fileURLWithPath: scratch.file("hub.stdout"))
        let errors = URL(fileURLWithPath: stderr ?? "/dev/null")
        process =
            if let fileLimit {
                try ChildProcess(
                    "/bin/sh", ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", hub] + arguments, output: stdout, errorOutput: errors)
            } else {
                try ChildProcess(hub, arguments, output: stdout, errorOutput: errors)
            }
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            text = (try? String(contentsOf: stdout, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.contains("listening on") }),
                let p = line.split(separator: ":").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) })
            {
                self.port = p
                return
            }
            if process.exitedStatus() != nil { break }
            usleep(20_000)
        }
        stop()
        throw TestFailure(description: "the hub did not start: \(text)")
    }

    /// SIGKILL by pid, then wait.
    public func kill() { process.stop(signal: SIGKILL) }

    /// SIGTERM by pid (graceful), SIGKILL after 5 s.
    public func stop() {
        guard process.exitedStatus() == nil else { return }
        Foundation.kill(process.pid, SIGTERM)
        if process.waitForExit(timeout: 5) == nil { kill() }
    }

    deinit {
        kill()
        scratch.cleanup()
    }

    /// (kind, id) of every record the hub holds for the device, with duplicates (if any) kept.
    public func records(device: String = "bike-1") throws -> [(kind: String, id: String, body: Data)] {
        var config = Configuration()
        config.readonly = true
        let q = try DatabaseQueue(path: dbPath, configuration: config)
        defer { try? q.close() }
        return try q.read { db in
            try Row.fetchAll(db, sql: "SELECT kind, id, body FROM records WHERE device_id = ? ORDER BY kind, id", arguments: [device])
                .map { ($0["kind"], $0["id"], $0["body"]) }
        }
    }
}

/// A device: a store filled with synthetic rides, a token file, consent on.
public struct Device {
    public static let token = "test-token-0123456789abcdef"
    public let dir: TempDir
    public let store: Store
    public var tokenFile: String { dir.file("token") }
    public var tokensFile: String { dir.file("hub-tokens") }
    public var hubDB: String { dir.file("hub.sqlite") }
    public var dbPath: String { dir.file("device.sqlite") }

    /// `trips` synthetic rides of `seconds` each (trip 1 has an SOS); `confirm` of
    /// their drafts confirmed by the rider, the rest left pending.
    public init(
        trips: Int = 4, seconds: Int = 600, confirm: Int = 2, consent: Consent = Consent(tripsAndDrafts: true, sos: true),
        privacy: PrivacySettings = Device.privacy
    ) async throws {
        dir = try TempDir()
        store = try Store.open(path: dir.file("device.sqlite"))
        let writer = try StoreWriter(store: store)
        for (i, item) in SyntheticRides.stream(trips: trips, secondsPerTrip: seconds).enumerated() {
            try writer.append(item.output, at: item.now, position: Int64(i))
        }
        try writer.flush()
        for d in try await store.listDrafts().prefix(confirm) { try store.confirmDraft(d.id) }
        for s in SyncStream.allCases { try SyncSettings.setConsent(store, s, consent.allows(s)) }
        try SyncSettings.setPrivacy(store, privacy)
        _ = FileManager.default.createFile(atPath: tokenFile, contents: Data(Device.token.utf8), attributes: [.posixPermissions: 0o600])
        _ = FileManager.default.createFile(
            atPath: tokensFile, contents: Data("bike-1 \(Device.token)\n".utf8), attributes: [.posixPermissions: 0o600])
    }

    /// A zone over the middle of the first synthetic ride (it rides east along 52.52 N from 13.40 E).
    public static let zone = PrivacyZone(
        name: "work", center: Coordinate(latitude: 52.52, longitude: 13.40 + 1500 / (111_320 * 0.6088)), radiusMeters: 250)
    public static let privacy = PrivacySettings(zones: [zone], trim: TripTrim(seconds: 30, meters: 30))

    public func client(timeout: Double = 5, url: String) throws -> HubClient {
        try HubClient(
            endpoint: HubEndpoint(
                baseURL: url, token: try DeviceToken.read(path: tokenFile), requestTimeoutSeconds: timeout,
                connectTimeoutSeconds: 1))
    }

    public func engine(_ client: HubClient, batchSize: Int = SyncOptions().batchSize) throws -> SyncEngine {
        var o = SyncOptions()
        try o.setBatchSize(batchSize)
        return SyncEngine(store: store, client: client, options: o, jitter: { 0.5 })
    }

    public func hub(port: Int = 0, extra: [String] = [], stderr: String? = nil, fileLimit: Int? = nil) throws -> HubProcess {
        try HubProcess(db: hubDB, tokens: tokensFile, port: port, extra: extra, stderr: stderr, fileLimit: fileLimit)
    }

    /// What the device means to send, worked out from the store's own tables
    /// (not from the outbox): SOS events, confirmed drafts, closed trips whose
    /// draft is not rejected, and the current revision of each pending draft.
    public func expected(consent: Consent) async throws -> Set<String> {
        var out = Set<String>()
        let summaries = try await store.listDrafts()
        if consent.tripsAndDrafts {
            for d in summaries {
                if d.state == .queued || d.state == .synced || d.state == .confirmed { out.insert("confirmation/\(d.id)") }
                if d.state != .rejected { out.insert("trip/\(d.tripID)") }
                if d.state == .pending {
                    let revision = try await store.draft(d.id).edits.count
                    out.insert("draft/\(d.id)_r\(revision)")
                }
            }
        }
        if consent.sos {
            let q = try DatabaseQueue(
                path: dbPath,
                configuration: {
                    var c = Configuration(); c.readonly = true; return c
                }())
            defer { try? q.close() }
            for id in try await q.read({ db in try String.fetchAll(db, sql: "SELECT id FROM events WHERE kind = 'sos'") }) {
                out.insert("sos/\(id)")
            }
        }
        return out
    }

    /// The invariant every fault test ends with: the hub holds exactly the
    /// records meant to be sent, once each, none with a position in a zone or
    /// within the trimmed ends of its trip.
    public func verifyHub(_ hub: HubProcess, consent: Consent = Consent(tripsAndDrafts: true, sos: true)) async throws {
        let held = try hub.records()
        let keys = held.map { "\($0.kind)/\($0.id)" }
        guard Set(keys).count == keys.count else { throw TestFailure(description: "duplicated records on the hub") }
        let want = try await expected(consent: consent)
        guard Set(keys) == want else {
            throw TestFailure(
                description:
                    "hub holds \(keys.count), expected \(want.count); missing \(want.subtracting(keys).sorted()), extra \(Set(keys).subtracting(want).sorted())"
            )
        }
        for r in held { try await checkPrivacy(kind: r.kind, body: r.body) }
    }

    public func checkPrivacy(kind: String, body: Data) async throws {
        let filter = PrivacyFilter(Device.privacy)
        func inZone(_ p: WirePosition?) -> Bool { p.map { filter.isInsideZone(Coordinate(latitude: $0.lat, longitude: $0.lon)) } ?? false }
        func checkDraft(_ d: DraftUpload) async throws {
            let doc = try await store.draft(String(d.id.split(separator: "_").first ?? ""))
            let first = doc.path.first!, last = doc.path.last!
            for pair in d.path {
                let c = Coordinate(latitude: pair[0], longitude: pair[1])
                if filter.isInsideZone(c) { throw TestFailure(description: "path point in a zone: \(pair)") }
                if Geodesic.distance(c, first) < 30 || Geodesic.distance(c, last) < 30 {
                    throw TestFailure(description: "path point inside the trimmed ends: \(pair)")
                }
            }
            if d.obstacles.contains(where: { inZone($0.position) }) || d.roadQuality.contains(where: { inZone($0.start) || inZone($0.end) })
            {
                throw TestFailure(description: "an obstacle or road segment in a zone")
            }
            if d.obstacles.contains(where: { ($0.offsetS ?? 1e9) < 30 }) { throw TestFailure(description: "an obstacle in the first 30 s") }
        }
        switch kind {
        case "sos":
            if inZone(try JSONDecoder().decode(SOSUpload.self, from: body).position) {
                throw TestFailure(description: "SOS position in a zone")
            }
        case "draft": try await checkDraft(try JSONDecoder().decode(DraftUpload.self, from: body))
        case "confirmation": try await checkDraft(try JSONDecoder().decode(ConfirmationUpload.self, from: body).draft)
        default: break
        }
    }
}

/// Repeats `syncOnce` until the outbox drains, at most `attempts` times (no sleeping:
/// the faults are random per request, the loop itself is the retry).
@discardableResult
public func drain(_ engine: SyncEngine, attempts: Int = 200) async throws -> Int {
    for n in 1...attempts {
        switch await engine.syncOnce() {
        case .drained: return n
        case .failed: continue
        case .unauthorized(let r): throw TestFailure(description: "unexpected 401: \(r)")
        case .misconfigured(let r): throw TestFailure(description: "unexpected 404/405: \(r)")
        }
    }
    throw TestFailure(description: "the outbox did not drain in \(attempts) passes")
}

/// A client for `device` against `url`, shut down after `body`.
@discardableResult
public func withClient<T>(_ device: Device, timeout: Double = 5, url: String, _ body: (HubClient) async throws -> T) async throws -> T {
    let client = try device.client(timeout: timeout, url: url)
    do {
        let r = try await body(client)
        await client.shutdown()
        return r
    } catch {
        await client.shutdown()
        throw error
    }
}
