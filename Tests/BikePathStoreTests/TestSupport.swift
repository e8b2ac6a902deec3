import BikePathCore
import Foundation
import BikePathTestSupport
import GRDB
@testable import BikePathStore

var isRoot: Bool { getuid() == 0 }
var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

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
        try queue.read { db in try Int.fetchOne(db, sql: sql) ?? -1 }
    }
}
