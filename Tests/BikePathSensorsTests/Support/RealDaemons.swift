import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Prerequisites for the tests that run the real gpsd / iiod. Locally without root or
/// without the binaries those tests skip and say why; on CI (CI=true or
/// BIKEPATH_REQUIRE_REAL=1) they run anyway and a missing prerequisite fails them.
enum RealDaemons {
    static var mustRun: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["CI"] == "true" || env["BIKEPATH_REQUIRE_REAL"] == "1"
    }

    /// Why the real-daemon tests cannot run here, or nil when they can.
    static func missing(_ binaries: [String], needsRoot: Bool = false) -> String? {
        var reasons: [String] = []
        if needsRoot, getuid() != 0 { reasons.append("not root (mount namespaces need it)") }
        for name in binaries + ["python3"] where executable(name) == nil {
            reasons.append("\(name) not found in PATH")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }

    /// For `.enabled(if:)`: run when the prerequisites are there, or when CI demands it.
    static func shouldRun(_ binaries: [String], needsRoot: Bool = false) -> Bool {
        mustRun || missing(binaries, needsRoot: needsRoot) == nil
    }

    /// Inside a test: records a failure (CI) when prerequisites are missing; returns false then.
    static func check(_ binaries: [String], needsRoot: Bool = false) -> Bool {
        guard let why = missing(binaries, needsRoot: needsRoot) else { return true }
        Issue.record("real-daemon test cannot run: \(why) (CI requires it)")
        return false
    }

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin"] {
            let candidate = "\(dir)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }

    /// The built `bikepathd` (`swift build --build-tests` builds it next to the tests).
    static var bikepathd: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return [URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("bikepathd").path,
                root.appendingPathComponent(".build/debug/bikepathd").path]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var harness: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Harness")
    }

    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
    }

    /// A port nobody listens on right now (TCP and UDP), picked by the kernel.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// True once something accepts TCP connections on 127.0.0.1:port.
    static func waitForListener(port: Int, timeout: Double = 5) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = sockaddr_in()
            addr.sin_family = sa_family_t(AF_INET)
            addr.sin_addr.s_addr = inet_addr("127.0.0.1")
            addr.sin_port = in_port_t(UInt16(port).bigEndian)
            let rc = withUnsafePointer(to: &addr) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            close(fd)
            if rc == 0 { return true }
            usleep(20_000)
        }
        return false
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes.
    static func wait(timeout: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
        return condition()
    }
}

/// A process a test started; stopped by its own pid, with the signal it needs.
/// Spawned with posix_spawn and reaped with waitpid rather than Foundation.Process: a child
/// spawned from a test's worker thread would inherit that thread's blocked signals
/// (SIGTERM would not stop it), and Process.waitUntilExit can miss the exit of a child.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    let name: String
    private var exitStatus: Int32?

    init(_ executable: String, _ arguments: [String], output: URL? = nil) throws {
        name = (executable as NSString).lastPathComponent
        let path = RealDaemons.executable(executable) ?? executable
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let out = output?.path ?? "/dev/null"
        posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, path, &actions, &attributes, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        pid = child
    }

    /// Sends `signal` to this pid only and reaps it.
    func stop(signal: Int32 = SIGTERM) {
        guard exitStatus == nil else { return }
        kill(pid, signal)
        _ = waitForExit()
    }

    /// Waits at most `timeout` seconds; nil while it still runs.
    func waitForExit(timeout: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
                return exitStatus
            }
            usleep(10_000)
        } while Date() < deadline
        return nil
    }

    /// Waits for the process to exit; returns its exit code (128 + signal when killed).
    func waitForExit() -> Int32 {
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        exitStatus = code
        return code
    }

    deinit { stop(signal: SIGKILL) }
}

/// Thread-safe list a source's callback appends to.
final class Collector<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    func append(contentsOf more: [T]) { lock.lock(); items.append(contentsOf: more); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
    var count: Int { lock.lock(); defer { lock.unlock() }; return items.count }
}

/// A scratch directory removed at the end of the test.
struct ScratchDirectory {
    let url: URL
    init(_ name: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("bikepath-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
}
