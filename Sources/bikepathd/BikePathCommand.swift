import ArgumentParser

@main
struct BikePathCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bikepathd",
        abstract: "Edge agent for Linux bike computers: records trips, detects obstacles, syncs drafts.",
        version: "0.1.0",
        subcommands: [
            DraftsCommand.self, VerifyCommand.self, ExportCommand.self, StatsCommand.self, StoreReplayCommand.self,
            SyncCommand.self,
        ]
    )
}
