import BikePathDeviceTestSupport
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathStore

/// The store is the rider's: a member of group bikepath runs `drafts`
/// without sudo; others get nothing. (The files' modes: BikePathStoreTests.)
@Suite(.ownThreads) struct StoreGroupAccessTests {
    /// As on a Pi: the state directory 0770 (the unit's StateDirectoryMode) of the
    /// daemon's group; a user in that group lists and confirms without sudo, a user
    /// outside it reads nothing. Needs root to switch users (setpriv, util-linux).
    @Test func aGroupMemberReviewsWithoutSudoAndOthersCannot() async throws {
        guard isRoot else {
            if isCI { Issue.record("needs root to run commands as another user, and CI=true") }
            print("skipped: not root, cannot switch users")
            return
        }
        let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let state = dir.file("state")
        let db = state + "/s.db"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
        let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
        let made = try await runProcess(
            "/bin/sh", ["-c", "umask 077 && exec \"$0\" store-replay --db \"$1\" --trips 1 --seconds-per-trip 60", bench, db])
        #expect(made.status == 0, "\(made.err)")
        let group = "54321"  // the daemon's group (bikepath on a Pi); the files keep root as owner, like the daemon's user
        #expect(try await runProcess("/bin/chgrp", ["-R", group, state]).status == 0)
        #expect(chmod(state, 0o770) == 0 && chmod(dir.path, 0o755) == 0)
        func asUser(groups: String, _ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
            try runProcess("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--groups=\(groups)", binary] + arguments)
        }
        let listed = try asUser(groups: group, ["drafts", "list", "--db", db])
        #expect(listed.status == 0 && listed.out.contains("to review"), "\(listed.err)")
        let confirmed = try asUser(groups: group, ["drafts", "confirm", "1", "--db", db])
        #expect(confirmed.status == 0, "\(confirmed.err)")
        let outsider = try asUser(groups: "65534", ["drafts", "list", "--db", db])
        #expect(outsider.status != 0)
        let reopened = try Store.open(path: db, mode: .readOnly)
        #expect(try await reopened.listDrafts().map(\.state) == [.queued])
    }
}
