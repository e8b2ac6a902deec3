import BikePathTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import BikePathHub

/// What an operator relies on: liveness apart from readiness, and answered records on disk.
@Suite(.serialized, .ownThreads) struct OperationsTests {
    /// A hub whose PostgreSQL stops: /v1/health says the process lives, /v1/ready says 503
    /// within its 2 s deadline (it said ok, and map requests hung for 15 s or ended in a 500).
    @Test(
        .timeLimitOnceRunning(.minutes(2)),
        .enabled(if: PostgresCluster.binDirectory != nil || PostgresCluster.required, "needs PostgreSQL"))
    func readinessFollowsTheDatabase() async throws {
        let cluster = try PostgresCluster()
        defer { cluster.stop() }
        let url = try cluster.createDatabase()
        try await HubStorage.postgres(url: url).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { client in
                let up = try await client.execute(uri: "/v1/ready", method: .get)
                #expect(up.status == .ok, "\(String(buffer: up.body))")
                cluster.stop()
                let t0 = ContinuousClock.now
                let down = try await client.execute(uri: "/v1/ready", method: .get)
                let waited = ContinuousClock.now - t0
                #expect(down.status == .serviceUnavailable, "\(String(buffer: down.body))")
                #expect(String(buffer: down.body).contains("not-ready"))
                #expect(down.headers[.retryAfter] == "2")
                #expect(waited < .seconds(5), "the probe answered after \(waited)")
                let alive = try await client.execute(uri: "/v1/health", method: .get)
                #expect(alive.status == .ok, "liveness does not depend on the database")
            }
        }
    }

    @Test func readinessOnSQLite() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try SQLiteHubStore(path: dir.file("hub.sqlite"))
        #expect(await Readiness.check(store) == .notReady("no schema: run `bikepath-hub migrate`"))
        try await store.migrate()
        #expect(await Readiness.check(store) == .ready)
    }

    /// The device marks a record sent on the hub's 201: the commit must be on disk by then.
    @Test func theSQLiteHubSyncsEachCommit() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try SQLiteHubStore(path: dir.file("hub.sqlite"))
        // Readers never write; the writer connection is the one that commits.
        let writer = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writer == 2, "synchronous = FULL (2) on the writer, got \(String(describing: writer))")
    }
}
