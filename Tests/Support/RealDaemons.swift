import Foundation
import Testing
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Prerequisites for the tests that run the real gpsd / iiod. Locally without root or
/// without the binaries those tests skip and say why; on CI (CI=true or
/// BIKEPATH_REQUIRE_REAL=1) they run anyway and a missing prerequisite fails them.
public enum RealDaemons {
    public static var mustRun: Bool {
        let env = ProcessInfo.processInfo.environment
        return env["CI"] == "true" || env["BIKEPATH_REQUIRE_REAL"] == "1"
    }

    /// Why the real-daemon tests cannot run here, or nil when they can.
    public static func missing(_ binaries: [String], needsRoot: Bool = false) -> String? {
        var reasons: [String] = []
        if needsRoot, getuid() != 0 { reasons.append("not root (mount namespaces need it)") }
        for name in binaries + ["python3"] where executable(name) == nil {
            reasons.append("\(name) not found in PATH")
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: ", ")
    }

    /// For `.enabled(if:)`: run when the prerequisites are there, or when CI demands it.
    public static func shouldRun(_ binaries: [String], needsRoot: Bool = false) -> Bool {
        mustRun || missing(binaries, needsRoot: needsRoot) == nil
    }

    /// Inside a test: records a failure (CI) when prerequisites are missing; returns false then.
    public static func check(_ binaries: [String], needsRoot: Bool = false) -> Bool {
        guard let why = missing(binaries, needsRoot: needsRoot) else { return true }
        Issue.record("real-daemon test cannot run: \(why) (CI requires it)")
        return false
    }

    public static func executable(_ name: String) -> String? { executableInPath(name) }

    /// The built `bikepathd` (`swift build --build-tests` builds it next to the tests).
    public static var bikepathd: String? { builtExecutable("bikepathd") }

    /// Tests/Harness: the fake IIO feeder, the gpsd UDP feeder.
    public static var harness: URL { URL(fileURLWithPath: packageRoot + "/Tests/Harness", isDirectory: true) }

    /// The sensor tests' fixtures (NMEA logs, GoPro CSVs).
    public static var fixtures: URL {
        URL(fileURLWithPath: packageRoot + "/Tests/BikePathSensorsTests/Fixtures", isDirectory: true)
    }

    /// A port nobody listens on right now (TCP and UDP), picked by the kernel.
    public static func freePort() -> Int { freeLoopbackPort() }

    /// True once something accepts TCP connections on 127.0.0.1:port.
    public static func waitForListener(port: Int, timeout: Double = 5) -> Bool {
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

    /// Polls `condition` every 20 ms until it holds, for about `timeout` seconds
    /// of this test's own running time (`waitUntil`: counted in polls).
    public static func wait(timeout: Double, _ condition: () -> Bool) async -> Bool {
        await waitUntil(polls: max(1, Int(timeout / 0.02)), every: .milliseconds(20), condition)
    }
}

/// Thread-safe list a source's callback appends to.
public final class Collector<T: Sendable>: Sendable {
    public init() {}
    private let items = Mutex<[T]>([])
    public func append(_ item: T) { items.withLock { $0.append(item) } }
    public func append(contentsOf more: [T]) { items.withLock { $0.append(contentsOf: more) } }
    public var all: [T] { items.withLock { $0 } }
    public var count: Int { items.withLock { $0.count } }
}
