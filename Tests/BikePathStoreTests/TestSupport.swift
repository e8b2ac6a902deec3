import BikePathFixtures
import BikePathCore
import Foundation
import BikePathTestSupport
import GRDB
import Testing
@testable import BikePathStore

var isRoot: Bool { getuid() == 0 }
var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

/// Mounts a 2 MB tmpfs at `dir/small` (root only: without root it says why it
/// skips, and records a failure when CI=true, where a skip is not allowed).
func mountSmallDisk(_ dir: TempDir, for test: String) throws -> String? {
    guard isRoot else {
        if isCI { Issue.record("\(test) needs root to mount a tmpfs, and CI=true") }
        print("skipped: not root, cannot mount a small tmpfs for \(test)")
        return nil
    }
    let mountPoint = dir.file("small")
    try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
    let result = try runProcess("/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", mountPoint])
    guard result.status == 0 else {
        Issue.record("mount failed: \(result.err)")
        return nil
    }
    return mountPoint
}

/// The bikepathd executable that `swift test` built next to the test bundle.
func bikepathdPath() -> String? { builtExecutable("bikepathd") }

/// Writes a whole synthetic stream through a writer and flushes.
func replay(_ store: Store, trips: Int, seconds: Int, policy: WriterPolicy = WriterPolicy()) throws -> StoreWriter {
    let writer = try StoreWriter(store: store, policy: policy)
    for (i, item) in SyntheticRides.stream(trips: trips, secondsPerTrip: seconds).enumerated() {
        try writer.append(item.output, at: item.now, position: Int64(i))
    }
    try writer.flush()
    return writer
}

extension Store {
    func count(_ sql: String) throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }
}

/// The bikepathd binary and a store of two synthetic 300 s rides made by
/// `BikePathBench store-replay`, as a rider's CLI finds it.
func storeWithTwoRides() throws -> (binary: String, dir: TempDir, db: String) {
    let binary = try #require(bikepathdPath(), "bikepathd must be built next to the tests")
    let bench = try #require(benchExecutablePath(), "BikePathBench must be built next to the tests")
    let dir = try TempDir()
    let db = dir.file("s.db")
    let result = try runProcess(bench, ["store-replay", "--db", db, "--trips", "2", "--seconds-per-trip", "300"])
    #expect(result.status == 0, "\(result.err)")
    return (binary, dir, db)
}
