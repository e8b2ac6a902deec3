import BikePathCore
import BikePathSensors
import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathDaemon

/// `run --replay`'s source plays each pass through `RecordingReaderSource` (one read
/// loop for every replay): the same records in the same order, passes shifted.
@Suite(.ownThreads) struct ReplaySourceTests {
    static let ride = Paths.root + "/Recordings/allthedocks-GX010056.bpr"

    static func drain(_ next: () -> [SensorRecord], until finished: () -> Bool) -> [SensorRecord] {
        var out: [SensorRecord] = []
        while !finished() { out += next() }
        return out
    }

    @Test("two passes: the file's records, then the same shifted one span (time range + 1 s) later")
    func repeatsShiftEachPass() throws {
        let plainSource = RecordingReaderSource(reader: try RecordingReader(path: Self.ride))
        let plain = Self.drain({ plainSource.next(timeoutSeconds: 0) }, until: { plainSource.finished })
        let replay = try ReplaySource(path: Self.ride, repeats: 2)
        try replay.start()
        let played = Self.drain({ replay.next(timeoutSeconds: 0) }, until: { replay.finished })
        #expect(replay.failure == nil && !plain.isEmpty)
        #expect(played.count == 2 * plain.count)
        #expect(Array(played.prefix(plain.count)) == plain)
        let times = plain.map(\.time.nanoseconds)
        let span = times.max()! - times.min()! + 1_000_000_000
        #expect(Array(played.dropFirst(plain.count)) == plain.map { $0.shifted(by: span) })
        #expect(replay.next(timeoutSeconds: 0).isEmpty, "nothing after the end")
    }

    @Test("stop mid-file: nothing more is read and the replay is not finished (the trip stays open)")
    func stopLeavesItUnfinished() throws {
        let replay = try ReplaySource(path: Self.ride, repeats: 1)
        try replay.start()
        #expect(replay.next(timeoutSeconds: 0).count == 2048)
        replay.stop()
        #expect(replay.next(timeoutSeconds: 0).isEmpty)
        #expect(!replay.finished && replay.failure == nil)
    }
}
