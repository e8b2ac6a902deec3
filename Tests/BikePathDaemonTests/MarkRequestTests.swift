import BikePathTestSupport
import BikePathCore
import Foundation
import Synchronization
import Testing
@testable import BikePathDaemon

@Suite("Status socket: mark [KIND]", .ownThreads)
struct MarkRequestTests {
    @Test("the handler gets the kind (pothole by default) and its later answer reaches the client")
    func answeredLater() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let asked = Mutex<[ObstacleKind]>([])
        let server = try StatusServer(
            path: directory + "/s.sock", status: { sampleStatus },
            mark: { kind, reply in
                asked.withLock { $0.append(kind) }
                // Answered from another thread, later: as the daemon does at the next fix.
                Thread.detachNewThread {
                    usleep(200_000)
                    reply(MarkReply(kind: kind.rawValue, trip: "t-1", timeS: 12, lat: 51.5, lon: -0.1, speedMps: 5))
                }
            })
        defer { server.stopAndWait() }
        let bump = try StatusClient.mark(path: server.path, kind: "bump")
        #expect(bump == MarkReply(kind: "bump", trip: "t-1", timeS: 12, lat: 51.5, lon: -0.1, speedMps: 5))
        #expect(bump.humanReadable() == "marked bump in trip t-1 at 51.500000, -0.100000 (18.0 km/h)")
        #expect(try StatusClient.mark(path: server.path, kind: nil).kind == "pothole")
        #expect(asked.withLock { $0 } == [.bump, .pothole])
    }

    @Test("an unknown kind, and a server without a handler, get an error reply; nothing reaches the daemon")
    func refused() throws {
        let directory = try TempDir().path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let calls = Mutex(0)
        let server = try StatusServer(
            path: directory + "/s.sock", status: { sampleStatus },
            mark: { _, reply in
                calls.withLock { $0 += 1 }
                reply(.failure("not in a trip (trip state: idle)"))
            })
        defer { server.stopAndWait() }
        let bad = try StatusClient.mark(path: server.path, kind: "crater")
        #expect(bad.error?.hasPrefix("unknown obstacle kind \"crater\"") == true)
        #expect(calls.withLock { $0 } == 0)
        let idle = try StatusClient.mark(path: server.path, kind: "debris")
        #expect(idle.error == "not in a trip (trip state: idle)" && idle.humanReadable() == "not marked: not in a trip (trip state: idle)")
        let plain = try StatusServer(path: directory + "/p.sock", status: { sampleStatus })
        defer { plain.stopAndWait() }
        #expect(try StatusClient.mark(path: plain.path, kind: nil).error == "this daemon takes no marks")
    }
}

@Suite("Label times", .ownThreads)
struct LabelClockTests {
    @Test("two marks before the next record get two times; a later record time is taken as is")
    func distinct() {
        var clock = LabelClock()
        let now = SampleTime(nanoseconds: 5_000)
        #expect(clock.time(at: now) == now)
        #expect(clock.time(at: now) == SampleTime(nanoseconds: 5_001))
        #expect(clock.time(at: SampleTime(nanoseconds: 4_000)) == SampleTime(nanoseconds: 5_002), "never back in time")
        #expect(clock.time(at: SampleTime(nanoseconds: 9_000)) == SampleTime(nanoseconds: 9_000))
    }
}
