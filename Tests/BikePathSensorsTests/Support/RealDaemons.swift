import BikePathTestSupport
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

    static func executable(_ name: String) -> String? { executableInPath(name) }

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
    static func freePort() -> Int { freeLoopbackPort() }

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
