import BikePathServing
import BikePathStore
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle
#if canImport(Glibc)
    import Glibc
#endif

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
/// `hosts`: the names a request may carry in `Host` (DNS rebinding, docs/review.md);
/// `publishing`: what of the configuration decides whether a confirmed draft leaves the device.
/// `streetMap`: what is drawn under the path (none unless configured).
public func buildReviewRouter(
    store: Store, sessions: ReviewSessions, hosts: ReviewHosts, publishing: PublishingSetup,
    streetMap: StreetMap = .none, firstMilestoneMetres: Double = 100_000, syncNow: (@Sendable () -> Void)? = nil
) throws -> Router<BasicRequestContext> {
    let router = Router()
    // First, so that every answer carries them, the Host check's refusals included; a
    // middleware applies only to the routes added after it.
    router.add(middleware: SecurityHeadersMiddleware(fields: ReviewSecurityHeaders.fields(streetMap)))
    router.add(middleware: HostCheckMiddleware(hosts: hosts))
    ReviewRoutes(
        store: store, sessions: sessions, library: try ReviewTemplates.library(), publishing: publishing, streetMap: streetMap,
        firstMilestoneMetres: firstMilestoneMetres, syncNow: syncNow
    )
    .add(to: router)
    return router
}

/// Why the review page could not start, in one sentence the rider can act on.
public enum ReviewStartError: Error, Equatable, CustomStringConvertible {
    /// EADDRINUSE: another program (or a second bikepathd) serves the port; `setBy`: where the address is set.
    case portInUse(ReviewAddress, setBy: String)
    /// EADDRNOTAVAIL: the address is not one of this machine's; `setBy`: where it is set.
    case addressNotOnThisMachine(ReviewAddress, setBy: String)

    public var description: String {
        switch self {
        case .portInUse(let a, let setBy):
            "port \(a.port) is already in use on \(a.host); pick another with \(setBy)"
        case .addressNotOnThisMachine(let a, let setBy):
            "\(a.host) is not an address of this machine, so the review page cannot listen on \(a); use 0.0.0.0 (every interface) or one of its addresses in \(setBy)"
        }
    }

    /// The sentence for a bind failure, or nil for any other error.
    static func from(_ error: any Error, address: ReviewAddress, setBy: String) -> ReviewStartError? {
        guard let io = error as? IOError else { return nil }
        switch io.errnoCode {
        case EADDRINUSE: return .portInUse(address, setBy: setBy)
        case EADDRNOTAVAIL: return .addressNotOnThisMachine(address, setBy: setBy)
        default: return nil
        }
    }
}

/// Builds the review page application, in the manner of Hummingbird's `buildApplication`.
public func buildReviewApplication(
    store: Store, address: ReviewAddress, publishing: PublishingSetup, streetMap: StreetMap = .none,
    sessions: ReviewSessions = ReviewSessions(), syncNow: (@Sendable () -> Void)? = nil,
    logger: Logger, onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
)
    throws -> some ApplicationProtocol
{
    // docs/connections.md: deadlines, 32 connections, 8 a client (200 idle connections
    // used to stop the page for 40 s and, inside `run`, `bikepathd status` with it).
    let policy = ConnectionPolicy.reviewPage
    return Application(
        router: try buildReviewRouter(
            store: store, sessions: sessions, hosts: ReviewHosts(listen: address), publishing: publishing,
            streetMap: streetMap,
            firstMilestoneMetres: store.configuration.milestoneSteps.first ?? 100_000, syncNow: syncNow),
        server: .http1(
            policy: policy,
            overflow: .init(
                contentType: "text/plain; charset=utf-8", body: Array("Request headers too large.\n".utf8),
                headers: ReviewSecurityHeaders.fields(streetMap))),
        configuration: .init(
            address: .hostname(address.host, port: address.port), serverName: "bikepathd-review",
            availableConnectionsDelegate: MaximumAvailableConnections(policy.maxConnections, logger: logger)),
        onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? address.port) },
        logger: logger)
}

/// The review page as a service of `bikepathd run` or `bikepathd review`: it
/// issues a pairing code, logs it with the URLs a phone can open, and serves until
/// the group shuts down.
public struct ReviewService: Service {
    let store: Store
    let address: ReviewAddress
    /// Where `address` is set, as the start error names it (`--listen or review.listen`): the
    /// caller spells it from the configuration's key table, which this module does not see.
    let addressSetBy: String
    let publishing: PublishingSetup
    let streetMap: StreetMap
    let syncNow: (@Sendable () -> Void)?
    let logger: Logger

    /// `syncNow`: wakes the sync loop of this process when the rider confirms a ride (`run`'s engine).
    public init(
        store: Store, address: ReviewAddress, addressSetBy: String, publishing: PublishingSetup, streetMap: StreetMap = .none,
        syncNow: (@Sendable () -> Void)? = nil, logger: Logger
    ) {
        self.store = store
        self.address = address
        self.addressSetBy = addressSetBy
        self.publishing = publishing
        self.streetMap = streetMap
        self.syncNow = syncNow
        self.logger = logger
    }

    /// - Throws: `ReviewStartError` when the address cannot be bound; the store's error when no code can be issued.
    public func run() async throws {
        if !address.isLoopback {
            // Configured on purpose (`addressSetBy`); said once so the log shows it (docs/review.md, threat model).
            logger.warning("review page open to the network on \(address): plain HTTP, every change needs a paired phone")
        }
        let code = try store.issuePairingCode()
        let logger = self.logger, address = self.address
        let app = try buildReviewApplication(
            store: store, address: address, publishing: publishing, streetMap: streetMap, syncNow: syncNow, logger: logger
        ) {
            port in
            let urls = address.phoneURLs(port: port, interfaces: InterfaceAddress.current())
            logger.notice(
                "review page on \(urls.joined(separator: " and ")) — pairing code \(code.code) (valid 10 min; `bikepathd review pair` makes a new one)"
            )
        }
        do {
            try await app.run()
        } catch {
            // NIO says "bind(descriptor:ptr:bytes:): Address already in use (errno: 98)".
            if let start = ReviewStartError.from(error, address: address, setBy: addressSetBy) {
                // Inside `run` the page is a helper whose failure leaves the daemon running
                // (DaemonServices): the log line is where the rider's operator reads why.
                logger.error("review page not started: \(start)")
                throw start
            }
            throw error
        }
    }
}
