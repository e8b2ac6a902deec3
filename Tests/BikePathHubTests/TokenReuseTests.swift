import BikePathAPI
import BikePathHub
import BikePathTestSupport
import Foundation
import Testing

/// One token for two devices is refused by name (the tokens file's line, both device ids),
/// on both stores, before anything is written; it used to stop `serve` with the database's
/// "SQLite error 19: UNIQUE constraint failed".
@Suite(.serialized, .ownThreads) struct TokenReuseTests {
    static let t1 = "token-one-0123456789abcdef", t2 = "token-two-0123456789abcdef"

    static func tokensFile(_ dir: TempDir, _ text: String) throws -> String {
        let path = dir.file("tokens")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    @Test(arguments: Backend.available) func aTokenHeldByAnotherDeviceIsRefusedByName(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            // bike-A's token was issued with the command; the file then gives it to bike-B on line 2.
            try await store.issueToken(device: "bike-A", token: Self.t1)
            let path = try Self.tokensFile(dir, "# devices\nbike-B \(Self.t1)\n")
            do {
                try await Hub.applyTokensFile(path: path, to: store, logger: Fixtures.logger)
                Issue.record("a reused token was applied")
            } catch let problem as TokenFile.Problem {
                guard case .badLine(let p, let line, let why) = problem else { Issue.record("\(problem)"); return }
                #expect(p == path && line == 2)
                #expect(why.contains("bike-B") && why.contains("bike-A") && why.contains("managed with `bikepath-hub token`"), "\(why)")
                #expect(!"\(problem)".contains("SQLite") && !"\(problem)".contains(Self.t1))
            }
            #expect(try await store.devices().map(\.device) == ["bike-A"], "nothing was written")

            // A revoked device keeps its token's hash: reusing that token is refused too.
            try await Hub.applyTokensFile(path: try Self.tokensFile(dir, "bike-C \(Self.t2) revoked\n"), to: store, logger: Fixtures.logger)
            do {
                try await Hub.applyTokensFile(path: try Self.tokensFile(dir, "bike-D \(Self.t2)\n"), to: store, logger: Fixtures.logger)
                Issue.record("a revoked device's token was given to another")
            } catch let problem as TokenFile.Problem {
                #expect(
                    "\(problem)".hasSuffix(
                        ":1: device bike-D is given the token of device bike-C (revoked): each device needs its own token"),
                    "\(problem)")
            }
            // `token add` with another device's token: the same refusal, typed.
            do {
                try await store.issueToken(device: "bike-E", token: Self.t1)
                Issue.record("token add reused a token")
            } catch let e as TokenInUse {
                #expect(e.device == "bike-E" && e.holder == "bike-A", "\(e)")
            }
            #expect(try await store.authenticate(token: Self.t1) == .device("bike-A"))
        }
    }

    /// Two devices of the file that swap tokens hold them in the end, never one token at once.
    @Test(arguments: Backend.available) func devicesMaySwapTokensInTheFile(_ backend: Backend) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await backend.storage(dir).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await Hub.applyTokensFile(
                path: try Self.tokensFile(dir, "bike-A \(Self.t1)\nbike-B \(Self.t2)\n"), to: store, logger: Fixtures.logger)
            try await Hub.applyTokensFile(
                path: try Self.tokensFile(dir, "bike-A \(Self.t2)\nbike-B \(Self.t1)\n"), to: store, logger: Fixtures.logger)
            #expect(try await store.authenticate(token: Self.t1) == .device("bike-B"))
            #expect(try await store.authenticate(token: Self.t2) == .device("bike-A"))
        }
    }

    /// The real `bikepath-hub serve` stops at start with the line and both devices, not the database's words.
    @Test func serveStopsWithTheLineAndBothDevices() throws {
        let hub = try #require(builtExecutable("bikepath-hub"))
        let dir = try TempDir()
        defer { dir.cleanup() }
        let tokenFile = dir.file("token-a")
        try Self.t1.write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let db = dir.file("hub.sqlite")
        #expect(try runProcess(hub, ["token", "add", "--db", db, "--device", "bike-A", "--token-file", tokenFile]).status == 0)
        let tokens = try Self.tokensFile(dir, "bike-B \(Self.t1)\n")
        // `timeout`: a hub that wrongly starts would otherwise serve until the test run is killed.
        let serve = try runProcess("/usr/bin/timeout", ["30", hub, "serve", "--port", "0", "--db", db, "--tokens", tokens])
        #expect(serve.status != 0)
        #expect(serve.err.contains("\(tokens):1: device bike-B is given the token of device bike-A"), "\(serve.err)")
        #expect(!serve.err.contains("SQLite error") && !serve.err.contains(Self.t1), "\(serve.err)")
        let add = try runProcess(hub, ["token", "add", "--db", db, "--device", "bike-C", "--token-file", tokenFile])
        #expect(add.status != 0 && add.err.contains("device bike-C is given the token of device bike-A"), "\(add.err)")
    }
}
