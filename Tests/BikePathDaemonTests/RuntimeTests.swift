import BikePathCore
import Foundation
import Testing
@testable import BikePathDaemon
import Synchronization

@Suite("run: merging sources, degraded reasons", .ownThreads)
struct RuntimeTests {
    static func imu(_ ms: Int64) -> SensorRecord {
        .imu(IMUSample(time: SampleTime(nanoseconds: ms * 1_000_000), accel: Vector3(x: 0, y: 0, z: 9.81)))
    }
    static func nmea(_ ms: Int64, _ s: String) -> SensorRecord { .nmea(SampleTime(nanoseconds: ms * 1_000_000), s) }

    @Test("an IMU buffer that arrives after the NMEA received meanwhile comes out in time order")
    func mergesInTimeOrder() {
        var merger = ReceiveOrderMerger(holdbackSeconds: 0.5)
        merger.add([Self.nmea(1050, "$A"), Self.nmea(1150, "$B")])  // NMEA first, as read
        merger.add((0..<20).map { Self.imu(1000 + 10 * $0) })  // then the buffer covering 1.00–1.19 s
        #expect(merger.release(now: SampleTime(nanoseconds: 1_400_000_000)).isEmpty, "everything is younger than the holdback")
        let out = merger.release(now: SampleTime(nanoseconds: 1_600_000_000))
        #expect(out.count == 12, "IMU 1.00–1.10 s and the NMEA at 1.05 s are due: \(out.count)")
        #expect(out.map(\.time) == out.map(\.time).sorted())
        #expect(out.contains(Self.nmea(1050, "$A")) && !out.contains(Self.nmea(1150, "$B")))
        let rest = merger.releaseAll()
        #expect(
            rest.count == 10 && rest[4] == Self.nmea(1150, "$B"),
            "the NMEA at 1.15 s before the IMU sample of the same time: it arrived first")
        #expect((out + rest).count == 22, "nothing lost")
        #expect((out + rest).map(\.time) == (out + rest).map(\.time).sorted())
    }

    @Test("equal times keep their arrival order")
    func tiesKeepArrivalOrder() {
        var merger = ReceiveOrderMerger(holdbackSeconds: 0)
        merger.add([Self.nmea(5, "$1"), Self.nmea(5, "$2"), Self.nmea(5, "$3")])
        #expect(merger.releaseAll() == [Self.nmea(5, "$1"), Self.nmea(5, "$2"), Self.nmea(5, "$3")])
    }

    @Test("RecordQueue: next waits for held records to become due; close releases the rest")
    func queueReleasesWhenDue() {
        let clock = ManualClock()
        let queue = RecordQueue(holdbackSeconds: 1, clock: { clock.now })
        queue.push([Self.imu(0), Self.imu(10)])
        #expect(queue.next(timeoutSeconds: 0.1).isEmpty, "not due yet")
        clock.now = SampleTime(nanoseconds: 1_005_000_000)
        #expect(queue.next(timeoutSeconds: 0.1) == [Self.imu(0)])
        queue.close()
        #expect(queue.next(timeoutSeconds: 0.1) == [Self.imu(10)])
        #expect(queue.next(timeoutSeconds: 0).isEmpty)
    }

    @Test("a degraded reason is reported once when it appears and once when it clears")
    func degradedTransitions() {
        var tracker = DegradedTracker()
        #expect(tracker.update(["gpsd unreachable"]) == (["gpsd unreachable"], []))
        #expect(tracker.update(["gpsd unreachable"]) == ([], []))
        #expect(tracker.update(["gpsd unreachable", "IMU missing"]) == (["IMU missing"], []))
        #expect(tracker.update(["IMU missing"]) == ([], ["gpsd unreachable"]))
        #expect(tracker.current == ["IMU missing"])
    }
}

final class ManualClock: Sendable {
    private let value = Mutex(SampleTime(nanoseconds: 0))
    var now: SampleTime {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}
