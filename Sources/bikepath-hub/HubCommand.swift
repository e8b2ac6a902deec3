import ArgumentParser
import BikePathAPI
import BikePathHub
import Foundation
import Logging
import NIOCore

@main
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikepath-hub",
        abstract:
            "Reference upstream for bikepathd: stores trips, drafts, confirmations and SOS events, and publishes the riders' shared map (docs/api.yaml, docs/hub.md).",
        subcommands: [Serve.self, Migrate.self, Token.self, MapCommand.self, ImportOSM.self],
        defaultSubcommand: Serve.self
    )
}

/// A `TimeAmount` as the seconds an option takes: the defaults are `ConnectionPolicy.hub`'s.
func seconds(_ t: TimeAmount) -> Double { Double(t.nanoseconds) / 1e9 }

/// `--db FILE` or `--database postgres://…`, shared by every subcommand.
struct StorageOptions: ParsableArguments {
    @Option(help: "SQLite database file (created mode 0600 if missing): the embedded default for one rider.") var db: String?
    @Option(
        help: "PostgreSQL URL postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|prefer|require]; several hubs may share it.")
    var database: String?

    func validate() throws {
        guard (db == nil) != (database == nil) else { throw ValidationError("give exactly one of --db FILE and --database postgres://…") }
    }

    var storage: HubStorage { database.map { .postgres(url: $0) } ?? .sqlite(path: db ?? "") }
}

/// How `serve` prints its log events on stderr (docs/hub.md, "Logs").
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// One JSON object per line, for log collectors.
    case json
    /// `swift-log`'s plain lines, for a person at a terminal.
    case text
}

/// Logs go to stderr; stdout carries only what a command prints for its caller. `serve`
/// logs at info (one event per request), the other commands at notice.
func hubLogger(format: LogFormat = .text, level: Logger.Level = .notice) -> Logger {
    switch format {
    case .json: LoggingSystem.bootstrap { label in JSONLinesLogHandler(label: label, level: level) }
    case .text: LoggingSystem.bootstrap(StreamLogHandler.standardError)
    }
    var logger = Logger(label: "bikepath-hub")
    logger.logLevel = level
    return logger
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the hub (the default); migrates the database first.")

    @OptionGroup var storage: StorageOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one (printed on stdout).") var port = 8080
    @Option(
        help:
            "Tokens file: 'DEVICE-ID TOKEN [revoked]' per line, '#' comments; applied at start (docs/sync.md, \"Device tokens\"). Others must not read it."
    )
    var tokens: String?
    @Option(
        name: .customLong("max-connections"),
        help: "Connections held at once (lowered to fit the descriptor limit); more wait in the backlog.")
    var maxConnections = HubLimits().maxConnections
    @Option(name: .customLong("per-client-connections"), help: "Connections one IP address may hold at once; more are closed at once.")
    var perClient = HubLimits().connections.perClient
    @Option(
        name: .customLong("idle-timeout"),
        help: "Seconds a kept-alive connection has, after an answer, to send its next request head (in total).")
    var idleTimeout = seconds(HubLimits().connections.idleTimeout)
    @Option(
        name: .customLong("header-timeout"),
        help: "Seconds a new connection has to send its first complete request head (in total, however it trickles).")
    var headerTimeout = seconds(HubLimits().connections.headerTimeout)
    @Option(name: .customLong("body-timeout"), help: "Seconds a request body may take from its head to its end (in total).")
    var bodyTimeout = seconds(HubLimits().connections.bodyTimeout)
    @Option(
        name: .customLong("device-rate"),
        help: "Records a second each device may send on average, a batch of n costing n (0: no limit); past it requests are answered 429.")
    var deviceRate = HubLimits().deviceRecordsPerSecond
    @Option(name: .customLong("device-burst"), help: "Records a device may send at once before --device-rate applies.")
    var deviceBurst = HubLimits().deviceBurst
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.") var tlsKey: String?
    @Option(
        name: .customLong("basemap-url"),
        help:
            "Tile URL template of the map page's basemap (/map), e.g. https://tile.example.org/{z}/{x}/{y}.png; none by default: the overlays on white."
    )
    var basemapURL = ""
    @Option(
        name: .customLong("basemap-attribution"),
        help: "The basemap's attribution, shown on the map as plain text (its licence usually requires it).")
    var basemapAttribution = ""
    @Option(
        name: .customLong("map-view"), help: "Where the map page opens, LAT,LON,ZOOM (e.g. 51.51,-0.12,13); the whole world by default.")
    var mapView: String?
    @Option(name: .customLong("log-format"), help: "Log events on stderr as JSON lines (json) or plain text (text); one event per request.")
    var logFormat = LogFormat.json

    func validate() throws {
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard idleTimeout > 0, headerTimeout > 0, bodyTimeout > 0 else {
            throw ValidationError("--idle-timeout, --header-timeout and --body-timeout must be positive")
        }
        guard perClient >= 1 else { throw ValidationError("--per-client-connections must be at least 1") }
        guard deviceRate >= 0, deviceBurst >= 1 else {
            throw ValidationError("--device-rate must be at least 0 and --device-burst at least 1")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("give both --tls-cert and --tls-key") }
        if !basemapURL.isEmpty, let problem = MapPageSettings.problem(basemapURL: basemapURL) { throw ValidationError(problem) }
        if let mapView, MapPageSettings.View(mapView) == nil {
            throw ValidationError("--map-view must be LAT,LON,ZOOM with a zoom of 0-19")
        }
    }

    func run() async throws {
        let logger = hubLogger(format: logFormat, level: .info)
        let limits = HubLimits(
            maxConnections: maxConnections, idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
            headerTimeout: .milliseconds(Int64(headerTimeout * 1000)), bodyTimeout: .milliseconds(Int64(bodyTimeout * 1000)),
            perClient: perClient, deviceRecordsPerSecond: deviceRate, deviceBurst: deviceBurst)
        let configuration = HubConfiguration(
            host: host, port: port, limits: limits, tls: tlsCert.flatMap { c in tlsKey.map { (c, $0) } },
            mapPage: MapPageSettings(
                basemapURL: basemapURL, basemapAttribution: basemapAttribution,
                view: mapView.flatMap(MapPageSettings.View.init)))
        // A bad tokens file stops the hub before anything is opened (exit 1, the problem on
        // stderr): better than serving with the wrong devices.
        if let tokens { _ = try TokenFile.read(path: tokens) }
        try await storage.storage.withStore(logger: logger) { store in
            try await store.migrate()
            if let tokens { try await Hub.applyTokensFile(path: tokens, to: store, logger: logger) }
            let app = try Hub.buildApplication(configuration: configuration, store: store, logger: logger) { port in
                // Tests read this line to learn the port.
                FileHandle.standardOutput.write(Data("bikepath-hub listening on \(host):\(port)\n".utf8))
            }
            try await app.runService()
        }
    }
}

struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database's schema to this version and print the versions applied.")

    @OptionGroup var storage: StorageOptions

    func run() async throws {
        let versions = try await storage.storage.withStore(logger: hubLogger()) { store in
            try await store.migrate()
            return try await store.appliedMigrations()
        }
        print("schema versions: \(versions.joined(separator: ", "))")
    }
}

struct Token: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Issue, revoke or list device tokens (works while hubs run; docs/sync.md, \"Device tokens\").",
        subcommands: [Add.self, Revoke.self, List.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Set a device's token from a file; lifts a revocation. The device is then managed with this command, not the tokens file.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "Device id.") var device: String
        @Option(name: .customLong("token-file"), help: "File holding the new token; others must not read it.") var tokenFile: String

        func run() async throws {
            guard Validation.isValidID(device) else { throw ValidationError("a device id is 1-64 characters of A-Z a-z 0-9 - _") }
            let token = try TokenFile.readSecret(path: tokenFile).trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = TokenSyntax.problem(token) { throw ValidationError("\(tokenFile): \(problem)") }
            try await storage.storage.withStore(logger: hubLogger()) { store in
                try await store.migrate()
                try await store.issueToken(device: device, token: token)
            }
            print("token set for \(device); it is now managed with this command, not the tokens file")
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its next request is answered 401, also after a restart, whatever the tokens file says.")
        @OptionGroup var storage: StorageOptions
        @Option(help: "Device id.") var device: String

        func run() async throws {
            let found = try await storage.storage.withStore(logger: hubLogger()) { store in
                try await store.migrate()
                return try await store.revoke(device: device)
            }
            guard found else { throw ValidationError("no device \(device)") }
            print("revoked \(device)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print each device: id, allowed or revoked, and who manages its token (never the token).")
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let devices = try await storage.storage.withStore(logger: hubLogger()) { store in
                try await store.migrate()
                return try await store.devices()
            }
            for d in devices { print("\(d.device) \(d.revoked ? "revoked" : "allowed") \(d.managedBy.rawValue)") }
        }
    }
}

struct MapCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map", abstract: "What the map maintainer could not index (docs/hub.md, \"Upload budget\").",
        subcommands: [SetAside.self])

    struct SetAside: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-aside",
            abstract:
                "Print each confirmation the map set aside (indexed with nothing: over the budget, not decodable, or failing every attempt): device, id, attempts, why."
        )
        @OptionGroup var storage: StorageOptions

        func run() async throws {
            let aside = try await storage.storage.withStore(logger: hubLogger()) { store in
                try await store.migrate()
                return try await store.setAsideConfirmations()
            }
            for a in aside { print("\(a.key.device) \(a.key.id) attempts=\(a.attempts) \(a.reason)") }
            if aside.isEmpty { print("no confirmation is set aside") }
        }
    }
}
