import ArgumentParser
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
    @Option(help: "SQLite database file (created if missing).") var db: String
    @Option(help: "Token file: one 'DEVICE-ID TOKEN' per line, '#' comments; loaded into the database at start.")
    var tokens: String?
    @Option(name: .customLong("tls-cert"), help: "PEM certificate chain: serve HTTPS (with --tls-key).") var tlsCert: String?
    @Option(name: .customLong("tls-key"), help: "PEM private key of --tls-cert.") var tlsKey: String?

    // TEST-ONLY fault injection. Never use these in a deployment.
    @Option(name: .customLong("test-fail-ratio"), help: .hidden) var failRatio = 0.0
    @Option(name: .customLong("test-busy-ratio"), help: .hidden) var busyRatio = 0.0
    @Option(name: .customLong("test-delay-ratio"), help: .hidden) var delayRatio = 0.0
    @Option(name: .customLong("test-delay-ms"), help: .hidden) var delayMilliseconds = 0
    @Option(name: .customLong("test-drop-after-commit-ratio"), help: .hidden) var dropRatio = 0.0
    @Option(name: .customLong("test-seed"), help: .hidden) var seed: UInt64 = 1

    func run() async throws {
        // Logs go to stderr; stdout carries only the "listening" line.
        LoggingSystem.bootstrap(StreamLogHandler.standardError)
        let database = try HubDatabase(path: db)
        if let tokens { try TokenFile.load(path: tokens, into: database) }
        var logger = Logger(label: "bikepath-hub")
        logger.logLevel = .notice
        let faults = Faults(failRatio: failRatio, busyRatio: busyRatio, delayRatio: delayRatio, delayMilliseconds: delayMilliseconds,
                            dropAfterCommitRatio: dropRatio, seed: seed)
        if faults.isActive { logger.warning("TEST-ONLY fault injection is on: \(faults)") }
        let server = HubServer(database: database, dice: FaultDice(faults), logger: logger)
        let app = Application(
            router: server.router(),
            server: try httpServer(),
            configuration: .init(address: .hostname(host, port: port), serverName: "bikepath-hub"),
            onServerRunning: { channel in
                // Tests read this line to learn the port.
                FileHandle.standardOutput.write(Data("bikepath-hub listening on \(host):\(channel.localAddress?.port ?? -1)\n".utf8))
            },
            logger: logger)
        try await app.runService()
    }

    func httpServer() throws -> HTTPServerBuilder {
        switch (tlsCert, tlsKey) {
        case (nil, nil): return .http1()
        case (let cert?, let key?):
            let tls = TLSConfiguration.makeServerConfiguration(
                certificateChain: try NIOSSLCertificate.fromPEMFile(cert).map { .certificate($0) },
                privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
            return try .tls(.http1(), tlsConfiguration: tls)
        default: throw ValidationError("give both --tls-cert and --tls-key")
        }
    }
}

struct Tokens: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add or revoke device tokens (works while the hub runs).")

    @Option(help: "SQLite database file of the hub.") var db: String
    @Option(help: "Device id.") var device: String
    @Option(name: .customLong("token-file"), help: "File holding the new token (add).") var tokenFile: String?
    @Flag(help: "Revoke the device's token: its next request is answered 401.") var revoke = false

    func run() throws {
        let database = try HubDatabase(path: db)
        if revoke {
            guard try database.revoke(device: device) else { throw ValidationError("no device \(device)") }
            print("revoked \(device)")
        } else {
            guard let tokenFile else { throw ValidationError("give --token-file to add a token, or --revoke") }
            let token = try String(contentsOfFile: tokenFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.count >= 16 else { throw ValidationError("a token must have at least 16 characters") }
            try database.setToken(device: device, token: token)
            print("token set for \(device)")
        }
    }
}

enum TokenFile {
    /// Lines `DEVICE-ID TOKEN`; a third word `revoked` revokes the device.
    static func load(path: String, into database: HubDatabase) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            if words.isEmpty || words[0].hasPrefix("#") { continue }
            guard words.count == 2 || (words.count == 3 && words[2] == "revoked"), words[1].count >= 16 else {
                throw ValidationError("\(path):\(n + 1): expected 'DEVICE-ID TOKEN [revoked]' with a token of at least 16 characters")
            }
            try database.setToken(device: words[0], token: words[1])
            if words.count == 3 { try database.revoke(device: words[0]) }
        }
    }
}
