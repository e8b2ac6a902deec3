import ArgumentParser
import BikePathCLI
import BikePathDaemon
import Foundation

/// Where the running daemon answers: `--status-socket`, else the configuration's `status.socket`.
/// One spelling on every command (`run` serves where `run --status-socket` says, `status`,
/// `tail` and `mark` ask there); `--socket`, the old spelling of these three, still works.
struct SocketOptions: ParsableArguments {
    @Option(
        name: .customLong(ConfigurationKey.flag(\.status.socket)),
        help: ArgumentHelp(
            "The daemon's status socket (default: \(ConfigurationKey.path(\.status.socket)) of the configuration).", valueName: "path"))
    var statusSocket: String?
    @Option(name: .customLong("socket"), help: .hidden) var socketAlias: String?
    @Option(help: ArgumentHelp("Configuration file to take \(ConfigurationKey.path(\.status.socket)) from.", valueName: "file"))
    var config: String?

    func socketPath() throws -> String {
        if let socket = statusSocket ?? socketAlias { return CommandLinePath.resolve(socket) }
        do {
            return try ConfigurationLoader.load(flag: config).status.socket
        } catch {
            throw failWithConfigurationProblems(error)
        }
    }
}

/// `bikepathd status`: asks the running daemon.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Ask the running daemon: trip state, last fix and its age, IMU rate, sync queue and last result, free space."
    )

    @OptionGroup var socket: SocketOptions
    @Flag(help: "One JSON object instead of text.") var json = false

    func run() throws {
        let status: DaemonStatus
        do {
            status = try StatusClient.fetchStatus(path: try socket.socketPath())
        } catch let error as StatusSocketError {
            // docs/json.md: an error with --json is `{"error": …}` on stdout too, so a script reading
            // stdout learns why instead of reading nothing.
            if json { print(jsonText(["error": error.description])) }
            standardErrorLine("error: \(error)")
            throw ExitCode.failure
        }
        print(json ? status.jsonLine() : status.humanReadable())
    }
}

/// `bikepathd tail`: streams the daemon's events until interrupted.
struct TailCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tail",
        abstract: "Stream the running daemon's events live (trips, obstacles, sync, sensor changes).",
        discussion: "Ends when the daemon stops. With --json, one JSON object per line."
    )

    @OptionGroup var socket: SocketOptions
    @Flag(help: "Newline-delimited JSON instead of text.") var json = false

    func run() throws {
        try StatusClient.tail(path: try socket.socketPath()) { event in TailJSON.write(event, json: json) }
    }
}
