import BikePathAPI
import BikePathCore
import BikePathDeviceTestSupport
import BikePathStore
import BikePathTestSupport
import Foundation
import GRDB
import Testing

@testable import BikePathSync

/// A rider's named paths through the real sync client to a real `bikepath-hub serve` holding
/// central London's streets, imported by `bikepath-hub import-osm` from the real extract
/// (../shared/datasets/osm, © OpenStreetMap contributors): made (length), refused (not
/// retried), and kept while the hub cannot be reached (docs/sync.md, "Manual paths").
@Suite(.serialized, .ownThreads, .enabled(if: RealExtract.available))
struct ManualPathSyncTests {

    /// On Aldersgate Street and on Old Street, 575 m apart (the hub's `ManualPathTests`).
    static let onAldersgate = WirePosition(lat: 51.51900, lon: -0.09705)
    static let onOldStreet = WirePosition(lat: 51.52410, lon: -0.09625)

    static func path(_ streets: [String]) -> ManualPathUpload {
        ManualPathUpload(streets: streets, start: onAldersgate, end: onOldStreet, status: "medium")
    }

    /// The paths the hub stores for the device.
    static func held(_ hub: HubProcess) throws -> [String] {
        var config = Configuration()
        config.readonly = true
        let q = try DatabaseQueue(path: hub.dbPath, configuration: config)
        defer { try? q.close() }
        return try q.read { db in try String.fetchAll(db, sql: "SELECT id FROM manual_paths WHERE device_id = 'bike-1' ORDER BY id") }
    }

    @Test(.timeLimitOnceRunning(.minutes(6))) func madeRefusedAndOfflinePathsEndAsTheHubSaid() async throws {
        let device = try await Device(trips: 1, seconds: 60, confirm: 0)
        defer { device.dir.cleanup() }
        let made = try device.store.addManualPath(Self.path(["Aldersgate Street", "Goswell Road", "Old Street"]), utcNanoseconds: 1)
        let unknown = try device.store.addManualPath(
            Self.path(["Aldersgate Street", "Nowhere Lane", "Old Street"]), utcNanoseconds: 2)

        // Offline: nothing listens on the port. Both stay queued; the first says why.
        let nowhere = try device.client(timeout: 2, url: "http://127.0.0.1:\(RealDaemons.freePort())")
        let offline = try await device.engine(nowhere).syncOnce()
        await nowhere.shutdown()
        guard case .failed(.unreachable, _) = offline else {
            Issue.record("an unreachable hub gave \(offline)")
            return
        }
        var paths = try await device.store.manualPaths()
        #expect(paths.map(\.state) == [.queued, .queued])
        // The outbox goes first and fails first: the paths are not tried while the hub is unreachable.
        #expect(paths.allSatisfy { $0.lengthMeters == nil && $0.refusalCode == nil })

        // The hub with central London's streets.
        let hubBinary = try #require(builtExecutable("bikepath-hub"))
        let imported = try await runProcess(hubBinary, ["import-osm", "--db", device.hubDB, RealExtract.central])
        #expect(imported.status == 0, "\(imported.err)")
        let hub = try device.hub()
        defer { hub.stop() }
        let client = try device.client(url: hub.url)
        let engine = try device.engine(client)
        let online = await engine.syncOnce()
        // The ride's records and the made path sent; the refused path counted with the quarantined.
        guard case .drained(let sentCount, quarantined: 1) = online, sentCount >= 1 else {
            Issue.record("the pass with the hub up gave \(online)")
            return
        }

        paths = try await device.store.manualPaths()
        let sent = try #require(paths.first { $0.id == made.id })
        #expect(sent.state == .sent, "\(sent)")
        // 575 m as the crow flies, ~690 m along the three streets (the hub's own test).
        #expect((575...800).contains(sent.lengthMeters ?? 0), "\(sent.lengthMeters ?? 0) m")
        let refused = try #require(paths.first { $0.id == unknown.id })
        #expect(refused.state == .refused && refused.refusalCode == "unknown-street", "\(refused)")
        #expect(refused.refusalMessage == #"street 2, "Nowhere Lane", is not a street near the path's ends"#)
        #expect(try Self.held(hub) == [made.id])

        // Not retried: a second pass sends nothing and tries neither path again.
        let again = await engine.syncOnce()
        #expect(again == .drained(sent: 0, quarantined: 0), "\(again)")
        let after = try await device.store.manualPaths()
        #expect(after.map(\.attempts) == paths.map(\.attempts), "\(after.map(\.attempts)) after \(paths.map(\.attempts))")
        #expect(try Self.held(hub) == [made.id])
        await client.shutdown()

        // The network goes while a path is queued and nothing else is: the path's own try
        // fails, it stays queued with why, and the same bytes are sent once the hub is back.
        hub.stop()
        var rated = Self.path(["Aldersgate Street", "Goswell Road", "Old Street"])
        rated.status = "optimal"
        let later = try device.store.addManualPath(rated, utcNanoseconds: 3)
        let down = await engine.syncOnce()
        guard case .failed(.unreachable, _) = down else {
            Issue.record("a pass with the hub gone gave \(down)")
            return
        }
        let waiting = try #require(try await device.store.manualPaths().first { $0.id == later.id })
        #expect(waiting.state == .queued && waiting.attempts == 1, "\(waiting)")
        #expect(waiting.lastFailure?.hasPrefix("hub unreachable") == true, "\(waiting.lastFailure ?? "no failure")")
        let back = try device.hub()
        defer { back.stop() }
        let again2 = try device.client(url: back.url)
        let resent = try await device.engine(again2).syncOnce()
        await again2.shutdown()
        #expect(resent == .drained(sent: 1, quarantined: 0), "\(resent)")
        let arrived = try #require(try await device.store.manualPaths().first { $0.id == later.id })
        #expect(arrived.state == .sent && arrived.attempts == 2 && arrived.lastFailure == nil, "\(arrived)")
        #expect(try Self.held(back) == [made.id, later.id].sorted())
    }

    /// Each answer, read alone: the hub's refusal is final, anything else is retried.
    @Test func eachAnswerIsReadAsTheHubMeansIt() throws {
        func answer(_ status: Int, _ body: String, retryAfter: String? = nil) -> HubAnswer {
            HubAnswer(status: status, retryAfter: retryAfter, body: Data(body.utf8))
        }
        let madeBody = #"{"type":"Feature","properties":{"id":"p","status":"medium","length_m":689.6,"streets":[]}}"#
        #expect(ManualPathVerdict(answer(201, madeBody)) == .sent(lengthMeters: 689.6))
        #expect(ManualPathVerdict(answer(200, madeBody)) == .sent(lengthMeters: 689.6))
        #expect(
            ManualPathVerdict(answer(422, #"{"error":"streets-do-not-meet","message":"name the streets between them"}"#))
                == .refused(code: "streets-do-not-meet", message: "name the streets between them"))
        #expect(
            ManualPathVerdict(answer(409, #"{"error":"conflict","message":"another body"}"#))
                == .refused(code: "conflict", message: "another body"))
        // A proxy's page, a body mangled on the way, a busy hub, an older hub: retried.
        guard case .retry(.notTheHub(422, _), nil) = ManualPathVerdict(answer(422, "<html>blocked</html>")) else {
            Issue.record("a proxy's 422 was taken as the hub's refusal")
            return
        }
        guard case .retry(_, nil) = ManualPathVerdict(answer(400, #"{"error":"bad-gzip","message":"x"}"#)) else {
            Issue.record("a body mangled in transit was refused for good")
            return
        }
        guard case .retry(.hubAnswered(503, _), 7) = ManualPathVerdict(answer(503, "{}", retryAfter: "7")) else {
            Issue.record("503 with Retry-After: 7 was not retried after 7 s")
            return
        }
        guard case .retry(.notTheHub(404, _), nil) = ManualPathVerdict(answer(404, "{}")) else {
            Issue.record("an older hub's 404 was not retried")
            return
        }
        guard case .retry(.notTheHub(201, _), nil) = ManualPathVerdict(answer(201, "{}")) else {
            Issue.record("a 201 without a length was taken as made")
            return
        }
        #expect(
            ManualPathVerdict(answer(401, #"{"error":"bad-token","message":"no"}"#)) == .unauthorized("bad-token: no"))
    }
}
