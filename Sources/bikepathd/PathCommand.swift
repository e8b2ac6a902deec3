import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathStore
import Foundation

/// `bikepathd path`: the rider enters a path by naming the streets in order, with a status (BBP R3–R4).
struct PathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Enter a path by naming its streets in order, with a status; sync sends it to the hub.",
        discussion: """
            A path is kept on this device and sent by the sync that already runs (the daemon, `bikepathd sync run`), \
            with trips and drafts: when trip sharing is on and a hub is set. The hub makes it on its streets and counts \
            it as your rating, or refuses it with a sentence (`path list` shows it); a refused path is not retried.
            """,
        subcommands: [Add.self, List.self, Delete.self]
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enter a path: its streets in riding order, its ends and status.")
        @OptionGroup var options: StoreOptions
        @Option(name: .customLong("street"), help: "A street's name, once per street in riding order (1-20).") var streets: [String] = []
        @Option(help: ArgumentHelp("Where the path starts, on the first street.", valueName: "lat,lon")) var start: String
        @Option(help: ArgumentHelp("Where the path ends, on the last street.", valueName: "lat,lon")) var end: String
        @Option(
            help: "Path status: \(PathStatus.words.joined(separator: ", ")) (or its JSON value, or a prefix).",
            transform: riderWord)
        var status: PathStatus

        func run() async throws {
            let upload = try await options.run {
                try ManualPathArguments(streets: streets, start: start, end: end, status: status).upload()
            }
            let store = try await options.open()
            let utc = Int64(Date().timeIntervalSince1970 * 1e9)
            let path = try await options.run { try store.addManualPath(upload, utcNanoseconds: utc) }
            // It leaves when a confirmed draft would (trip sharing, the file's ceiling, a hub): one rule.
            let fate = try await options.run { try await ConsentPolicy.confirmedDraft(store: store, file: options.fileConfiguration) }
            let now = fate.askDaemon(socket: CommandLinePath.resolve(options.fileConfiguration.status.socket))
            options.emit(DraftJSON.Transition(id: path.id, state: path.state.rawValue, confirmed: fate, now: now)) {
                ManualPathOutput.added(id: path.id, fate: fate, now: now)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List entered paths, oldest first, with what the hub said.")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let store = try await options.openForReading()
            let paths = try await options.run { try await store.manualPaths() }
            options.emit(ManualPathOutput.list(paths)) { ManualPathOutput.text(paths) }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete a path not sent (queued or refused); the hub has no delete for a sent one.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Path: its id or a unique prefix of it (`path list`).") var reference: String

        func run() async throws {
            let store = try await options.open()
            let id = try await options.run { try await store.resolveManualPathID(reference) }
            let path = try await options.run { try store.deleteManualPath(id) }
            options.emit(ManualPathOutput.Deleted(id: path.id, state: path.state.rawValue)) { ManualPathOutput.deleted(path) }
        }
    }
}
