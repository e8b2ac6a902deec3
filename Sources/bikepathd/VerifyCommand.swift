import ArgumentParser
import BikePathCLI
import BikePathDaemon
import BikePathStore

/// `bikepathd verify`: checks the hash chain over stored events and confirmed drafts.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the tamper-evident hash chain; report the first broken link.")
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let store = try await options.openForReading()
        let report = try await options.run { try store.verify() }
        options.emit(VerifyJSON(report)) { VerifyJSON.text(report) }
        if !report.ok { throw ExitCode(2) }
    }
}
