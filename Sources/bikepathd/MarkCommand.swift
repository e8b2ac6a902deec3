import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon

/// `bikepathd mark [KIND]`: the rider just passed an obstacle (a handlebar button runs
/// this, docs/install.md). The running daemon stores it as the rider's own obstacle at
/// the current position; it is shown in the trip's draft as such.
struct MarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Tell the running daemon you just passed an obstacle (default: pothole).",
        discussion: "Exits 1 when no daemon answers or no trip is under way; nothing is stored then.")

    @Argument(
        help: ArgumentHelp(
            "Obstacle kind: \(ObstacleKind.words.joined(separator: ", ")) (or a prefix).",
            valueName: "kind"), transform: riderWord)
    var kind: ObstacleKind = MarkReply.defaultKind
    @OptionGroup var socket: SocketOptions
    @Flag(help: "One JSON object instead of text.") var json = false

    func run() throws {
        let reply: MarkReply
        do {
            reply = try StatusClient.mark(path: try socket.socketPath(), kind: kind.rawValue)
        } catch {
            standardError("bikepathd mark: \(error)\n")
            throw ExitCode(1)
        }
        print(json ? reply.jsonLine() : reply.humanReadable())
        if reply.error != nil { throw ExitCode(1) }
    }
}
