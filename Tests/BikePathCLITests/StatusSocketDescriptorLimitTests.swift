import BikePathTestSupport
import Foundation
import Testing
@testable import BikePathDaemon

/// `bikepathd run` near its file-descriptor limit with connections waiting: the status
/// socket must back off instead of spinning on a readable socket (it used 100 % of a
/// core), keep descriptors for the rest of the daemon (at the limit libdispatch traps),
/// and `bikepathd status` must give up in bounded time.
@Suite("bikepathd run: status socket at the descriptor limit", .serialized, .timeLimitOnceRunning(.minutes(2)), .ownThreads)
struct StatusSocketDescriptorLimitTests {
    /// utime + stime of a process, in clock ticks.
    private func cpuTicks(_ pid: pid_t) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    private func openDescriptors(_ pid: pid_t) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }

    @Test("EMFILE: no busy accept loop, and `status` answers or gives up within its timeout")
    func backsOffAtTheDescriptorLimit() async throws {
        let prlimit = try #require(executableInPath("prlimit"), "prlimit (util-linux) is not installed")
        let bikepathd = try #require(builtExecutable("bikepathd"), "bikepathd is not built")
        let run = try DaemonRun()
        defer { run.cleanup() }
        // A first run to learn how many descriptors the idle daemon holds.
        let probe = try ChildProcess(
            bikepathd, ["run", "--config", run.config], output: URL(fileURLWithPath: run.directory.file("probe.log")))
        #expect(await waitUntil { (try? StatusClient.fetchStatus(path: run.socket)) != nil })
        let baseline = openDescriptors(probe.pid)
        probe.stop()
        #expect(baseline > 3)

        // Room for 4 clients above the baseline and the 16 descriptors the server leaves free.
        let limit = baseline + StatusServer.descriptorHeadroom + 4
        let daemon = try ChildProcess(
            prlimit, ["--nofile=\(limit):\(limit)", bikepathd, "run", "--config", run.config],
            output: URL(fileURLWithPath: run.directory.file("log")))
        defer { daemon.stop(signal: SIGKILL) }
        #expect(await waitUntil { (try? StatusClient.fetchStatus(path: run.socket)) != nil }, "\(run.log)")
        // More connections than descriptors left (non-blocking: a full backlog says EAGAIN).
        var clients: [Int32] = []
        defer { clients.forEach { close($0) } }
        let made = try #require(UnixAddress.make(run.socket))
        for _ in 0..<30 {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = made.0
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, made.1) } }
            clients.append(fd)
        }
        // The daemon now sits at its limit with connections pending (idle ones go after 5 s).
        try await Task.sleep(for: .milliseconds(300))
        let before = try #require(cpuTicks(daemon.pid))
        try await Task.sleep(for: .seconds(2))
        let after = try #require(cpuTicks(daemon.pid))
        let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
        let busy = Double(after - before) / ticksPerSecond / 2
        #expect(daemon.waitForExit(timeout: 0) == nil, "alive through the measurement: \(run.log.suffix(2000))")
        #expect(busy < 0.5, "the idle daemon used \(Int(busy * 100)) % of a core with accept failing")

        let started = Date()
        let status = try await runProcess(bikepathd, ["status", "--socket", run.socket])
        #expect(Date().timeIntervalSince(started) < 12, "status is bounded: \(status.err)")
        // At the limit itself libdispatch traps (SIGILL, exit 132: it cannot open /proc to
        // watch its threads), so the server leaves the last 16 descriptors to the daemon.
        #expect(daemon.waitForExit(timeout: 0) == nil, "the daemon runs on: \(run.log.suffix(2000))")
    }
}
