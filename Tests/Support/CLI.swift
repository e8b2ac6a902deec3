import Foundation

/// The CLI and the databases as a field technician would look at them.
public struct CLI: Sendable {
    public init(binary: String, store: String, socket: String) {
        self.binary = binary
        self.store = store
        self.socket = socket
    }

    public let binary: String
    public let store: String
    public let socket: String

    public struct Status {
        public var trip: String
        public var degraded: [String]
        public var gnssConnected: Bool
        public var fixAge: Double?
        public var syncSucceeded: Bool?
    }

    /// Runs the CLI (or `executable`) to its end (`runCommand`); stderr is dropped.
    public func run(_ arguments: [String], executable: String? = nil) throws -> (status: Int32, out: String) {
        let result = try runCommand(executable ?? binary, arguments, timeout: 300)
        return (result.status, result.out)
    }

    /// `run` for async tests: the child runs while the pool stays free (see `offThePool`).
    public func run(_ arguments: [String], executable: String? = nil) async throws -> (status: Int32, out: String) {
        try await offThePool { try self.run(arguments, executable: executable) }
    }

    public func status() -> Status? {
        guard let r = try? run(["status", "--socket", socket, "--json"]), r.status == 0,
            let object = try? JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any]
        else { return nil }
        let trip = object["trip"] as? [String: Any], gnss = object["gnss"] as? [String: Any], sync = object["sync"] as? [String: Any]
        return Status(
            trip: trip?["state"] as? String ?? "?", degraded: object["degraded"] as? [String] ?? [],
            gnssConnected: gnss?["connected"] as? Bool ?? false, fixAge: gnss?["last_fix_age_s"] as? Double,
            syncSucceeded: sync?["succeeded"] as? Bool)
    }

    public func sql(_ query: String, db: String? = nil) -> String {
        let sqlite3 = RealDaemons.executable("sqlite3") ?? "/usr/bin/sqlite3"
        return ((try? run(["-readonly", db ?? store, query], executable: sqlite3))?.out ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    public func openTrips() -> [String] {
        sql("SELECT id FROM trips WHERE state = 'open'").split(separator: "\n").map(String.init)
    }

    public func trackPoints(_ trip: String) -> Int { Int(sql("SELECT COUNT(*) FROM track_points WHERE trip_id = '\(trip)'")) ?? 0 }

    public func pendingDraft() -> String? {
        // Filtered by the state's JSON value, which stays put while its printed word changes
        // ("pending" became "to review", and this looked for the word).
        guard let r = try? run(["drafts", "list", "--state", "pending", "--db", store]), r.status == 0 else { return nil }
        // A line is "  N  ID  DATE TIME  STATE …": the id is the 36-character word.
        return r.out.split(separator: "\n").lazy.compactMap { $0.split(separator: " ").first { $0.count == 36 }.map(String.init) }.first
    }

    public func log(_ dir: TempDir, _ n: Int) -> String {
        (try? String(contentsOf: dir.url.appendingPathComponent("daemon\(n).log"), encoding: .utf8)) ?? ""
    }
}
