import BikePathServing
import BikePathStore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle

/// Where the review page listens: `HOST:PORT` (`127.0.0.1:8080`, `0.0.0.0:8080`).
public struct ReviewAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (port 0 picks a free one); nil when malformed.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65535).contains(port) else {
            return nil
        }
        let host = String(text[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port)
    }

    /// Loopback only: the page is not reachable from the Wi-Fi.
    public var isLoopback: Bool { host == "127.0.0.1" || host == "::1" || host == "localhost" }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// Builds the review page's router (for in-process tests and the application).
public func buildReviewRouter(store: Store, sessions: ReviewSessions, firstMilestoneMetres: Double = 100_000) throws -> Router<BasicRequestContext> {
    let router = Router()
    ReviewRoutes(store: store, sessions: sessions, library: try ReviewTemplates.library(), firstMilestoneMetres: firstMilestoneMetres)
        .add(to: router)
    return router
}

/// Builds the review page application, in the manner of Hummingbird's `buildApplication`.
public func buildReviewApplication(store: Store, address: ReviewAddress, sessions: ReviewSessions = ReviewSessions(),
                                   logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in })
    throws -> some ApplicationProtocol
{
    // docs/connections.md: deadlines, 32 connections, 8 a client (200 idle connections
    // used to stop the page for 40 s and, inside `run`, `bikepathd status` with it).
    let policy = ConnectionPolicy.reviewPage
    return Application(
                router: try buildReviewRouter(store: store, sessions: sessions, firstMilestoneMetres: store.configuration.milestoneSteps.first ?? 100_000),
                server: .http1(policy: policy, overflow: .init(contentType: "text/plain; charset=utf-8", body: Array("Request headers too large.\n".utf8))),
                configuration: .init(address: .hostname(address.host, port: address.port), serverName: "bikepathd-review",
                                     availableConnectionsDelegate: MaximumAvailableConnections(policy.maxConnections, logger: logger)),
                onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? address.port) },
                logger: logger)
}

/// The review page as a service of `bikepathd run` or `bikepathd review`: it
/// issues a pairing code, logs it, and serves until the group shuts down.
public struct ReviewService: Service {
    let store: Store
    let address: ReviewAddress
    let logger: Logger

    public init(store: Store, address: ReviewAddress, logger: Logger) {
        self.store = store
        self.address = address
        self.logger = logger
    }

    public func run() async throws {
        if !address.isLoopback {
            // Configured on purpose (review.listen / --listen); said once so the log shows it (docs/review.md, threat model).
            logger.warning("review page open to the network on \(address): plain HTTP, every change needs a paired phone")
        }
        let code = try store.issuePairingCode()
        let logger = self.logger, address = self.address
        let app = try buildReviewApplication(store: store, address: address, logger: logger) { port in
            logger.notice("review page on http://\(ReviewAddress(host: address.host, port: port)) — pairing code \(code.code) (valid 10 min; `bikepathd review pair` makes a new one)")
        }
        try await app.run()
    }
}
