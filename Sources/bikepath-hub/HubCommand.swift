import ArgumentParser
import BikePathAPI
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL

@main
struct HubCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikepath-hub",
        abstract: "Reference upstream for bikepathd: stores trips, drafts, confirmations and SOS events (docs/api.yaml).",
        subcommands: [Serve.self, Tokens.self],
        defaultSubcommand: Serve.self
    )
}

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the hub (the default).")

    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on; 0 picks a free one (printed on stdout).") var port = 8080
    @Option(help: "SQLite database file (created mode 0600 if missing).") var db: String
    @Option(help: "Tokens file: 'DEVICE-ID TOKEN [revoked]' per line, '#' comments; applied at start (docs/sync.md, \"Device tokens\"). Others must not read it.")
    var tokens: String?
    @Option(name: .customLong("max-connections"), help: "Connections held at once (lowered to fit the descriptor limit); more wait in the backlog.")
    var maxConnections = HubLimits().maxConnections
    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may go without a request part before it is closed.")
    var idleTimeout = 30.0
    @Option(name: .customLong("header-timeout"), help: "Seconds a new connection has to send its first complete request head.")
    var headerTimeout = 10.0
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.") var tlsKey: String?

    // TEST-ONLY fault injection. Never use these in a deployment.
    @Option(name: .customLong("test-fail-ratio"), help: .hidden) var failRatio = 0.0
    @Option(name: .customLong("test-busy-ratio"), help: .hidden) var busyRatio = 0.0
    @Option(name: .customLong("test-delay-ratio"), help: .hidden) var delayRatio = 0.0
    @Option(name: .customLong("test-delay-ms"), help: .hidden) var delayMilliseconds = 0
    @Option(name: .customLong("test-drop-after-commit-ratio"), help: .hidden) var dropRatio = 0.0
    @Option(name: .customLong("test-seed"), help: .hidden) var seed: UInt64 = 1

    func validate() throws {
        guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
        guard idleTimeout > 0, headerTimeout > 0 else { throw ValidationError("--idle-timeout and --header-timeout must be positive") }
    }

    func run() async throws {
        // Logs go to stderr; stdout carries only the "listening" line.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        var logger = Logger(label: "bikepath-hub")
        logger.logLevel = .notice
        // A bad tokens file stops the hub before anything is opened (exit 1, the problem on
        // stderr): better than serving with the wrong devices.
        let entries = try tokens.map { path throws(TokenFile.Problem) in try TokenFile.read(path: path) }
        let database = try HubDatabase(path: db)
        if let mode = PrivateFile.openToOthers(path: db) {
            logger.warning("the database \(db) has mode \(mode): others can read every device's records (chmod 600 \(db))")
        }
        if let tokens, let entries { log(try database.apply(tokenFile: entries), file: tokens, logger: logger) }
        let faults = Faults(failRatio: failRatio, busyRatio: busyRatio, delayRatio: delayRatio, delayMilliseconds: delayMilliseconds,
                            dropAfterCommitRatio: dropRatio, seed: seed)
        if faults.isActive { logger.warning("TEST-ONLY fault injection is on: \(faults)") }
        let workers = DecodeWorkers()
        let server = HubServer(database: database, dice: FaultDice(faults), workers: workers, logger: logger)
        let limits = HubLimits(maxConnections: maxConnections, idleTimeout: .milliseconds(Int64(idleTimeout * 1000)),
                               headerTimeout: .milliseconds(Int64(headerTimeout * 1000)))
        let cap = limits.connectionCap(descriptorLimit: DescriptorLimit.raise())
        if cap < maxConnections { logger.notice("at most \(cap) connections at once: the descriptor limit leaves no room for \(maxConnections)") }
        let app = Application(
            router: server.router(),
            server: try httpServer(limits),
            configuration: .init(address: .hostname(host, port: port), serverName: "bikepath-hub",
                                 availableConnectionsDelegate: MaximumAvailableConnections(cap, logger: logger)),
            onServerRunning: { channel in
                // Tests read this line to learn the port.
                FileHandle.standardOutput.write(Data("bikepath-hub listening on \(host):\(channel.localAddress?.port ?? -1)\n".utf8))
            },
            logger: logger)
        try await app.runService()
        await workers.shutdown()
    }

    /// The device ids the tokens file touched, one notice per kind of change.
    func log(_ r: TokenFileReport, file: String, logger: Logger) {
        func note(_ devices: [String], _ what: String) {
            if !devices.isEmpty { logger.notice("\(file): \(what): \(devices.joined(separator: ", "))") }
        }
        note(r.added, "added")
        note(r.replaced, "token replaced")
        note(r.revoked, "revoked")
        note(r.revokedAbsent, "revoked, no longer in the file")
        note(r.keptRevoked, "still revoked (the file cannot restore a device; issue a new token with `bikepath-hub tokens`)")
        note(r.ignoredCommandManaged, "line ignored: the token is managed with `bikepath-hub tokens`")
        note(r.commandManaged, "not in the file, still allowed: tokens issued with `bikepath-hub tokens` (revoke with --revoke)")
    }

    func httpServer(_ limits: HubLimits) throws -> HTTPServerBuilder {
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: [RequestHeadGuard(headerTimeout: limits.headerTimeout)],
            idleTimeout: limits.idleTimeout,
            httpDecoderConfiguration: .init(maxHeaderFieldSize: HubLimits.maxHeaderFieldSize, maxHeaderListSize: HubLimits.maxHeaderListSize,
                                            maxHeaderFieldCount: HubLimits.maxHeaderCount)))
        switch (tlsCert, tlsKey) {
        case (nil, nil): return http1
        case (let cert?, let key?):
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            return try .tls(http1, tlsConfiguration: tls)
        default: throw ValidationError("give both --tls-cert and --tls-key")
        }
    }
}

struct Tokens: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Issue or revoke device tokens (works while the hub runs; docs/sync.md, \"Device tokens\").")

    @Option(help: "SQLite database file of the hub.") var db: String
    @Option(help: "Device id.") var device: String
    @Option(name: .customLong("token-file"), help: "File holding the new token (add).") var tokenFile: String?
    @Flag(help: "Revoke the device's token: its next request is answered 401, also after a restart, whatever the tokens file says.") var revoke = false

    func run() throws {
        let database = try HubDatabase(path: db)
        if revoke {
            guard try database.revoke(device: device) else { throw ValidationError("no device \(device)") }
            print("revoked \(device)")
        } else {
            guard let tokenFile else { throw ValidationError("give --token-file to add a token, or --revoke") }
            guard Validation.isValidID(device) else { throw ValidationError("a device id is 1-64 characters of A-Z a-z 0-9 - _") }
            let token = try TokenFile.readSecret(path: tokenFile).trimmingCharacters(in: .whitespacesAndNewlines)
            if let problem = TokenSyntax.problem(token) { throw ValidationError("\(tokenFile): \(problem)") }
            try database.issueToken(device: device, token: token)
            print("token set for \(device); it is now managed with this command, not the tokens file")
        }
    }
}
