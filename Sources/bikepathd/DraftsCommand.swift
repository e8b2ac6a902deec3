import ArgumentParser
import BikePathCLI
import BikePathCore
import BikePathDaemon
import BikePathReview
import BikePathStore
import Foundation

/// `bikepathd drafts`: the rider reviews closed trips before anything is published.
struct DraftsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drafts",
        abstract: "Review trip drafts: nothing is published until you confirm it.",
        discussion: """
            A pending draft is never published. With trip sharing on (`bikepathd sync consent trips on`) and a hub \
            configured, its trimmed, zone-free copy and its trip totals go to this device's private area on the hub \
            (for review elsewhere; never published, never shown to anyone else); a confirmed draft is published.
            """,
        subcommands: [List.self, Show.self, Confirm.self, Reject.self, Edit.self]
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List drafts, oldest first.")
        @OptionGroup var options: StoreOptions
        @Option(
            help: "Only drafts in this state: \(DraftState.words.joined(separator: ", ")) (or its JSON value, or a prefix).",
            transform: riderWord)
        var state: DraftState?

        func run() async throws {
            let store = try await options.openForReading()
            let all = try await options.run { try await store.listDrafts() }
            let drafts = all.filter { state == nil || $0.state.word == state?.word }
            options.emit(DraftJSON.list(drafts)) { DraftText.list(drafts, numberedAmong: all) }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one draft: trip, obstacles, road quality, edits.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() async throws {
            let store = try await options.openForReading()
            let d = try await options.run { try await store.draft(try await store.resolveDraftID(reference)) }
            options.emit(DraftJSON.draft(d)) { DraftText.render(d) }
        }
    }

    struct Confirm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Confirm a pending draft: it is frozen and hash-chained, and published when trip sharing is on and a hub is set.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() async throws {
            let store = try await options.open()
            let d = try await options.run { try store.confirmDraft(try await store.resolveDraftID(reference)) }
            let fate = try await options.run { try await ConsentPolicy.confirmedDraft(store: store, file: options.fileConfiguration) }
            // When it may leave, the running daemon is asked to send it now (its status socket).
            let now = fate.askDaemon(socket: CommandLinePath.resolve(options.fileConfiguration.status.socket))
            options.emit(DraftJSON.Transition(id: d.id, state: d.state.rawValue, confirmed: fate, now: now)) {
                fate.text(id: d.id, now: now)
            }
        }
    }

    struct Reject: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reject a pending draft: it will never be sent.")
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String

        func run() async throws {
            let store = try await options.open()
            let id = try await options.run { try await store.resolveDraftID(reference) }
            try await options.run { try store.rejectDraft(id) }
            options.emit(DraftJSON.Transition(id: id, state: DraftState.rejected.rawValue)) { "draft \(id) rejected" }
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Edit a pending draft.",
            discussion: """
                Edits are applied in this order: --set-kind, --drop, --add, --path-status.
                  --set-kind OBSTACLE=KIND     change a candidate's type
                  --drop OBSTACLE              drop a candidate
                  --add KIND@SECONDS           add a missed obstacle SECONDS after the trip's start (position from the track)
                  --add KIND@HH:MM[:SS]        add a missed obstacle at that clock time, as `drafts show` prints it
                  --add KIND@LAT,LON           add a missed obstacle at a position
                  --path-status STATUS         rate the path (\(PathStatus.words.joined(separator: ", ")), or a prefix)
                OBSTACLE is the id shown by `drafts show`, a unique prefix of it, or its number there (#1).
                Obstacle kinds: \(ObstacleKind.words.joined(separator: ", ")) (or a prefix).
                """)
        @OptionGroup var options: StoreOptions
        @Argument(help: "Draft: its id, a unique prefix of it, or its number in `drafts list`.") var reference: String
        @Option(name: .customLong("set-kind"), help: "OBSTACLE=KIND") var setKind: [String] = []
        @Option(help: "OBSTACLE") var drop: [String] = []
        @Option(help: "KIND@SECONDS, KIND@HH:MM[:SS] or KIND@LAT,LON") var add: [String] = []
        @Option(name: .customLong("path-status"), help: "Path status: its word, JSON value or a prefix.", transform: riderWord)
        var pathStatus: PathStatus?

        func validate() throws {
            if arguments.isEmpty { throw ValidationError("nothing to edit: give --set-kind, --drop, --add or --path-status") }
        }

        var arguments: DraftEditArguments { DraftEditArguments(setKind: setKind, drop: drop, add: add, pathStatus: pathStatus) }

        func run() async throws {
            let store = try await options.open()
            let (d, edits) = try await options.run { try await arguments.apply(to: reference, in: store) }
            options.emit(DraftJSON.draft(d)) { "draft \(d.id): \(edits) edit(s) applied\n" + DraftText.render(d) }
        }
    }
}

/// A word of the rider's vocabulary as typed on the command line: the word, the JSON value or a prefix
/// (`--path-status "needs maintenance"`, `--path-status requiresMaintenance`, `--path-status needs`).
func riderWord<W: RiderWord>(_ text: String) throws -> W {
    do { return try W.parse(text) } catch { throw ValidationError(error.description) }
}
