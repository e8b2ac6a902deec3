import BikePathFixtures
import BikePathCore
import Foundation
import BikePathTestSupport
import GRDB
import Testing
@testable import BikePathStore

public var isRoot: Bool { getuid() == 0 }
public var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

/// Mounts a 2 MB tmpfs at `dir/small` (root only: without root it says why it
/// skips, and records a failure when CI=true, where a skip is not allowed).
public func mountSmallDisk(_ dir: TempDir, for test: String) throws -> String? {
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

/// Writes a whole synthetic stream through a writer and flushes.
public func replay(_ store: Store, trips: Int, seconds: Int, policy: WriterPolicy = WriterPolicy()) throws -> StoreWriter {
    let writer = try StoreWriter(store: store, policy: policy)
    for (i, item) in SyntheticRides.stream(trips: trips, secondsPerTrip: seconds).enumerated() {
        try writer.append(item.output, at: item.now, position: Int64(i))
    }
    try writer.flush()
    return writer
}

extension Store {
    public func count(_ sql: String) throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }
}
