import Foundation

/// A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary
/// directory, `postgres` on a free loopback port, stopped by its pid. Debian's
/// `postgresql` package provides the programs (scripts/ensure-deps.sh installs it).
/// PostgreSQL refuses to run as root, so as root the cluster runs as the `postgres`
/// user (`setpriv`, which execs: the child's pid is the server's).
public final class PostgresCluster: @unchecked Sendable {
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    public let directory: String
    public let port: Int
    private var server: ChildProcess?
    private let bin: String

    /// The cluster's programs, or nil when PostgreSQL is not installed.
    public static var binDirectory: String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        return versions.sorted { (Int($0) ?? 0) > (Int($1) ?? 0) }
            .map { "/usr/lib/postgresql/\($0)/bin" }
            .first { FileManager.default.isExecutableFile(atPath: $0 + "/postgres") }
    }

    /// True where tests needing PostgreSQL must run rather than skip (CI=true).
    public static var required: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// One cluster per test process, started on first use and stopped at exit.
    public static let shared: Result<PostgresCluster, Unavailable> = {
        do {
            let cluster = try PostgresCluster()
            atexit { if case .success(let c) = PostgresCluster.shared { c.stop() } }
            return .success(cluster)
        } catch let e as Unavailable {
            return .failure(e)
        } catch {
            return .failure(Unavailable(description: "\(error)"))
        }
    }()

    /// `fsync` is off unless `durable`: a test kills hubs, never the database server.
    public init(durable: Bool = false) throws {
        guard let bin = Self.binDirectory else {
            throw Unavailable(description: "PostgreSQL is not installed (apt-get install postgresql)")
        }
        self.bin = bin
        directory = NSTemporaryDirectory() + "bikepath-pg-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let asRoot = getuid() == 0
        if asRoot { try Self.run("/bin/chown", ["postgres:postgres", directory]) }
        try Self.run(
            bin + "/initdb", ["-D", directory + "/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], asPostgres: asRoot)
        port = freeLoopbackPort()
        let settings = [
            "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=\(directory)", "-c", "max_connections=200",
            "-c", "fsync=\(durable ? "on" : "off")", "-c", "synchronous_commit=\(durable ? "on" : "off")",
            "-c", "full_page_writes=\(durable ? "on" : "off")",
        ]
        let arguments = ["-D", directory + "/data", "-p", "\(port)"] + settings
        let log = URL(fileURLWithPath: directory + "/server.log")
        let server =
            asRoot
            ? try ChildProcess(
                "/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", bin + "/postgres"] + arguments, output: log)
            : try ChildProcess(bin + "/postgres", arguments, output: log)
        self.server = server
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? Self.run(bin + "/pg_isready", ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres"])) != nil { return }
            guard server.waitForExit(timeout: 0) == nil else { break }
            usleep(100_000)
        }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        stop()
        throw Unavailable(description: "postgres did not start on port \(port): \(text.suffix(2000))")
    }

    /// A new empty database and its URL for `bikepath-hub --database`.
    public func createDatabase(_ name: String = "hub_" + UUID().uuidString.prefix(8).lowercased()) throws -> String {
        try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    public func url(database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)?sslmode=disable" }

    /// Runs SQL with `psql` and returns its unaligned, tuples-only output.
    @discardableResult
    public func psql(_ sql: String, database: String = "postgres") throws -> String {
        try Self.run(
            bin + "/psql",
            ["-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-At", "-c", sql])
    }

    /// Fast shutdown (SIGINT) by pid, SIGKILL after 10 s; then the directory goes.
    public func stop() {
        if let server, server.waitForExit(timeout: 0) == nil {
            kill(server.pid, SIGINT)
            if server.waitForExit(timeout: 10) == nil { server.stop(signal: SIGKILL) }
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    @discardableResult
    private static func run(_ path: String, _ arguments: [String], asPostgres: Bool = false) throws -> String {
        let (exe, args) =
            asPostgres
            ? ("/usr/bin/setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", path] + arguments) : (path, arguments)
        let r = try runProcess(exe, args)
        guard r.status == 0 else {
            throw Unavailable(description: "\(path) \(arguments.joined(separator: " ")): exit \(r.status): \(r.err)")
        }
        return r.out
    }
}
