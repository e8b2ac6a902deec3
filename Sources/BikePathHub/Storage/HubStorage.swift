import Foundation
import Logging
import PostgresNIO

/// Where the hub keeps its records: one SQLite file, or a PostgreSQL database that
/// several hub processes may share.
public enum HubStorage: Sendable, Equatable {
    case sqlite(path: String)
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require]`.
    case postgres(url: String)

    /// A database URL that cannot be used, said before anything is opened.
    public enum Problem: Error, Equatable, CustomStringConvertible {
        case badURL(String, why: String)

        public var description: String {
            switch self {
            case .badURL(let url, let why): "cannot use the database URL \(Self.redacted(url)): \(why)"
            }
        }

        /// The URL without its password, for messages and logs.
        static func redacted(_ url: String) -> String {
            guard var c = URLComponents(string: url), c.password != nil else { return url }
            c.password = "***"
            return c.string ?? "postgres://…"
        }
    }

    /// Runs `body` with the store open (and, for PostgreSQL, the connection pool running),
    /// then closes it. The store is not migrated here.
    public func withStore<T: Sendable>(logger: Logger, _ body: (any HubStore) async throws -> T) async throws -> T {
        switch self {
        case .sqlite(let path):
            let store = try SQLiteHubStore(path: path)
            if let mode = PrivateFile.openToOthers(path: path) {
                logger.warning("the database \(path) has mode \(mode): others can read every device's records (chmod 600 \(path))")
            }
            return try await body(store)
        case .postgres(let url):
            let client = PostgresClient(configuration: try Self.configuration(url: url), backgroundLogger: logger)
            return try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                return try await body(PostgresHubStore(client: client, logger: logger))
            }
        }
    }

    static func configuration(url: String) throws(Problem) -> PostgresClient.Configuration {
        guard let c = URLComponents(string: url), ["postgres", "postgresql"].contains(c.scheme ?? "") else {
            throw .badURL(url, why: "expected postgres://USER@HOST[:PORT]/DATABASE")
        }
        guard let host = c.host, !host.isEmpty else { throw .badURL(url, why: "no host") }
        guard let user = c.user, !user.isEmpty else { throw .badURL(url, why: "no user") }
        let database = String(c.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty else { throw .badURL(url, why: "no database name") }
        let tls: PostgresClient.Configuration.TLS
        switch c.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer" {
        case "disable": tls = .disable
        case "prefer": tls = .prefer(.makeClientConfiguration())
        case "require": tls = .require(.makeClientConfiguration())
        case let other: throw .badURL(url, why: "sslmode \(other) is not one of disable, prefer, require")
        }
        var config = PostgresClient.Configuration(
            host: host, port: c.port ?? 5432, username: user, password: c.password,
            database: database, tls: tls)
        // Each replica's share of the server's connections (PostgreSQL's default max_connections is 100).
        config.options.maximumConnections = 16
        return config
    }
}
