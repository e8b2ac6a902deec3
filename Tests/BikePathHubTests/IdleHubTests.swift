import AsyncHTTPClient
import BikePathAPI
import BikePathTestSupport
import Foundation
import NIOCore
import Testing

/// An idle hub rests: its map maintainer passes once a second, not in a loop. After the
/// first upload, a cancelled idle timer that still woke the maintainer made every pass
/// start the next at once, forever (a third of a core on an idle hub).
@Suite(.ownThreads) struct IdleHubTests {
    /// User + system CPU of `pid` so far, in clock ticks (/proc/PID/stat fields 14 and 15).
    static func cpuTicks(_ pid: Int32) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return Int(fields[11])! + Int(fields[12])!
    }

    @Test(.timeLimitOnceRunning(.minutes(1))) func anIdleHubUsesAlmostNoCPU() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let token = "idle-hub-token-0123456789"
        _ = FileManager.default.createFile(
            atPath: dir.file("tokens"), contents: Data("bike-1 \(token)\n".utf8),
            attributes: [.posixPermissions: 0o600])
        let hub = try await HubChild(["--db", dir.file("hub.sqlite"), "--tokens", dir.file("tokens")], log: dir.file("hub.log"))
        defer { hub.process.stop(signal: SIGKILL) }
        // One confirmation: its upload wakes the maintainer while the idle timer sleeps.
        var request = HTTPClientRequest(url: hub.url + "/v1/drafts/A/confirmation")
        request.method = .PUT
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try WireJSON.encode(Fixtures.confirmation(id: "A", obstacles: [("pothole", 300)]))))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        #expect(response.status == .created)
        try await Task.sleep(for: .seconds(2))  // past the upload's map pass
        let before = try Self.cpuTicks(hub.process.pid)
        try await Task.sleep(for: .seconds(4))
        let used = Double(try Self.cpuTicks(hub.process.pid) - before) / Double(sysconf(Int32(_SC_CLK_TCK)))
        // Four idle passes of a debug build on an empty database take milliseconds; the loop took 1.3 s.
        #expect(used < 0.2, "the idle hub used \(used) s of CPU in 4 s")
    }
}
