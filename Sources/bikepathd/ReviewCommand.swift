import ArgumentParser
import BikePathCLI
import BikePathDaemon
import BikePathReview
import BikePathStore
import Foundation

/// `bikepathd review`: the rider's review page for a store with no daemon
/// running (`run` serves the same page when `review.listen` is set), and
/// `review pair` for the code a phone pairs with (docs/review.md).
struct ReviewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "review",
        abstract: "Serve the review page (phone or laptop on the same network), or issue its pairing code.",
        subcommands: [Serve.self, Pair.self],
        defaultSubcommand: Serve.self)

    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the review page until SIGTERM/SIGINT; prints a pairing code at start.")
        @OptionGroup var options: StoreOptions
        @Option(
            help: ArgumentHelp(
                "HOST:PORT to listen on (default: \(ConfigurationKey.path(\.review.listen)) of the configuration file, else 127.0.0.1:8080).",
                valueName: "addr"))
        var listen: String?

        func run() async throws {
            let configured = options.fileConfiguration.review.listen
            let text = listen ?? (configured.isEmpty ? ReviewText.defaultListen : configured)
            guard let address = ReviewAddress(text) else { throw ValidationError("--listen wants HOST:PORT; got '\(text)'") }
            DaemonLogging.bootstrap(level: options.fileConfiguration.log.level)
            try await Daemon.serveReview(store: try await options.open(), address: address, configuration: options.fileConfiguration)
        }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Issue a new pairing code for the review page (one phone, 10 minutes, 5 tries).")
        @OptionGroup var options: StoreOptions

        func run() async throws {
            let store = try await options.open()
            let code = try await options.run { try store.issuePairingCode() }
            let listen = options.fileConfiguration.review.listen
            let urls = ReviewText.pageAddress(configured: listen).map(ReviewText.urls) ?? []
            options.emit(ReviewPairJSON(code: code.code, expiresUTCNanoseconds: code.expiresUTCNanoseconds, urls: urls)) {
                ReviewText.pairing(code: code.code, urls: urls, listenConfigured: !listen.isEmpty)
            }
        }
    }
}
