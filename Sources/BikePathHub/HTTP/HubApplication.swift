import BikePathAPI
import BikePathServing
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle

/// What `bikepath-hub serve` was asked for, minus the storage (see `HubStorage`).
public struct HubConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0 picks a free port (`onListening` gets the one bound).
    public var port = 8080
    public var limits = HubLimits()
    /// PEM certificate chain and private key: serve HTTPS.
    public var tls: (certificate: String, key: String)?
    /// The public map page (`/map`): its basemap, and where Leaflet is.
    public var mapPage = MapPageSettings()

    public init(
        host: String = "127.0.0.1", port: Int = 8080, limits: HubLimits = HubLimits(), tls: (certificate: String, key: String)? = nil,
        mapPage: MapPageSettings = MapPageSettings()
    ) {
        self.host = host
        self.port = port
        self.limits = limits
        self.tls = tls
        self.mapPage = mapPage
    }
}

/// The hub as a library, in Hummingbird's manner: `buildApplication` wires routes,
/// storage and limits into an application the caller runs (`runService()`), in the
/// `bikepath-hub` executable or in a test process.
public enum Hub {
    /// The hub's application on `store` (already migrated). `middleware` runs on every
    /// request after the request log, the metrics and the method check, before the routes
    /// (the tests' fault injection, `Tests/HubFaults`); `onListening` gets the bound port.
    public static func buildApplication(
        configuration: HubConfiguration, store: any HubStore, logger: Logger,
        middleware: (any RouterMiddleware<HubContext>)? = nil,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let workers = DecodeWorkers()
        let metrics = HubMetrics()
        let map = MapMaintainer(store: store, metrics: metrics, logger: logger)
        let server = HubServer(
            store: store, middleware: middleware, workers: workers, map: map, metrics: metrics,
            rateLimiter: DeviceRateLimiter(
                perSecond: configuration.limits.deviceRecordsPerSecond,
                burst: configuration.limits.deviceBurst),
            mapPage: MapPage(settings: configuration.mapPage, logger: logger), logger: logger)
        let limits = configuration.limits
        let cap = limits.connectionCap(descriptorLimit: DescriptorLimit.raise())
        if cap < limits.maxConnections {
            logger.notice("at most \(cap) connections at once: the descriptor limit leaves no room for \(limits.maxConnections)")
        }
        return Application(
            router: server.router(),
            server: try httpServer(limits, tls: configuration.tls),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "bikepath-hub",
                availableConnectionsDelegate: MaximumAvailableConnections(cap, logger: logger)),
            services: [workers, map],
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? -1) },
            logger: logger)
    }

    /// Applies the tokens file at `path` to `store` and logs what changed (device ids only).
    public static func applyTokensFile(path: String, to store: any RecordStore, logger: Logger) async throws {
        let report: TokenFileReport
        do {
            report = try await store.apply(tokenFile: try TokenFile.read(path: path))
        } catch let e as TokenInUse {
            throw TokenFile.Problem.badLine(path: path, line: e.line, why: e.description)
        }
        func note(_ devices: [String], _ what: String) {
            if !devices.isEmpty { logger.notice("\(path): \(what): \(devices.joined(separator: ", "))") }
        }
        note(report.added, "added")
        note(report.replaced, "token replaced")
        note(report.revoked, "revoked")
        note(report.revokedAbsent, "revoked, no longer in the file")
        note(report.keptRevoked, "still revoked (the file cannot restore a device; issue a new token with `bikepath-hub token add`)")
        note(report.ignoredCommandManaged, "line ignored: the token is managed with `bikepath-hub token`")
        note(
            report.commandManaged,
            "not in the file, still allowed: tokens issued with `bikepath-hub token add` (revoke with `token revoke`)")
    }

    static func httpServer(_ limits: HubLimits, tls: (certificate: String, key: String)?) throws -> HTTPServerBuilder {
        let overflow =
            (try? WireJSON.encode(
                ErrorBody(
                    error: "headers-too-large",
                    message:
                        "request headers are limited to \(HubLimits.maxHeaderListSize) bytes, \(HubLimits.maxHeaderFieldSize) per field, \(HubLimits.maxHeaderCount) fields"
                ))) ?? Data()
        let http1 = HTTPServerBuilder.http1(
            policy: limits.connections,
            overflow: .init(contentType: "application/json", body: Array(overflow)),
            maxHeaderFieldSize: HubLimits.maxHeaderFieldSize, maxHeaderListSize: HubLimits.maxHeaderListSize,
            maxHeaderCount: HubLimits.maxHeaderCount)
        guard let tls else { return http1 }
        let configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(tls.certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: tls.key, format: .pem)))
        return try .tls(http1, tlsConfiguration: configuration)
    }
}
