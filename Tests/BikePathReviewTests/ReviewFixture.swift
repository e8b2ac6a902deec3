import BikePathCore
import BikePathFixtures
import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathReview
#if canImport(Glibc)
    import Glibc
#endif

/// A store of synthetic rides (SyntheticRides: straight east at ~5 m/s, a
/// candidate every 45 s, a road-quality stretch every 60 s) written through the
/// daemon's own StoreWriter.
func storeWithRides(_ dir: TempDir, trips: Int = 2, seconds: Int = 300) throws -> Store {
    let store = try Store.open(path: dir.file("s.db"))
    let writer = try StoreWriter(store: store)
    for (i, item) in SyntheticRides.stream(trips: trips, secondsPerTrip: seconds).enumerated() {
        try writer.append(item.output, at: item.now, position: Int64(i))
    }
    try writer.flush()
    return store
}

/// The setup most route tests share: a store of `trips` synthetic rides in a temporary
/// directory, its first draft, and the page as `bikepathd review` routes it, paired through
/// the page itself. `body` gets the store, that draft's id, the client and the pairing.
func withPairedDraft(
    trips: Int = 2, publishing: PublishingSetup = PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon),
    streetMap: StreetMap = .none,
    _ body: @Sendable (Store, String, any TestClientProtocol, Paired) async throws -> Void
) async throws {
    let dir = try TempDir()
    defer { dir.cleanup() }
    let store = try storeWithRides(dir, trips: trips)
    let id = try await store.listDrafts()[0].id
    try await reviewApp(store, publishing: publishing, streetMap: streetMap).test(.router) { client in
        try await body(store, id, client, try await pair(client, store: store, draftID: id))
    }
}

/// The page served on a real socket, as `bikepathd review` serves it (`buildReviewApplication`
/// on a free loopback port), for what only a socket shows: a browser, raw requests, the
/// server's own refusals. `body` gets the port; the server then shuts down gracefully.
func withReviewServer<T>(_ store: Store, streetMap: StreetMap = .none, _ body: (Int) async throws -> T) async throws -> T {
    let (ports, sink) = AsyncStream.makeStream(of: Int.self)
    let app = try buildReviewApplication(
        store: store, address: ReviewAddress(host: "127.0.0.1", port: 0),
        publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon), streetMap: streetMap,
        logger: Logger(label: "review-test")
    ) { sink.yield($0) }
    let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "review-test"))
    let server = Task { try await group.run() }
    defer { server.cancel() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    let result: Result<T, any Error>
    do { result = .success(try await body(port)) } catch { result = .failure(error) }
    await group.triggerGracefulShutdown()
    _ = try? await server.value
    return try result.get()
}

/// A paired client's cookie and CSRF token.
struct Paired {
    let cookie: String
    let csrf: String
    var headers: HTTPFields { [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"] }
}

/// Pairs through the page itself: a code from the store, POST /pair, then reads the CSRF token off a draft page.
func pair(_ client: some TestClientProtocol, store: Store, draftID: String) async throws -> Paired {
    let code = try store.issuePairingCode()
    let cookie = try await client.execute(
        uri: "/pair", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
        body: ByteBuffer(string: "code=\(code.code)")
    ) { response in
        #expect(response.status == .seeOther)
        let setCookie = try #require(response.headers[.setCookie])
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
        return String(setCookie.prefix { $0 != ";" })
    }
    let csrf = try await client.execute(uri: "/drafts/\(draftID)", method: .get, headers: [.cookie: cookie]) { response in
        #expect(response.status == .ok)
        return try #require(csrfToken(in: String(buffer: response.body)))
    }
    return Paired(cookie: cookie, csrf: csrf)
}

func csrfToken(in html: String) -> String? {
    guard let range = html.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression) else { return nil }
    return String(html[range].dropFirst(#"name="csrf" value=""#.count).dropLast())
}

/// The router as `bikepathd review` on 127.0.0.1 builds it; by default with no hub set (the bundled example)
/// and no street map.
func reviewApp(
    _ store: Store, publishing: PublishingSetup = PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon),
    streetMap: StreetMap = .none
) throws -> some ApplicationProtocol {
    Application(
        router: try buildReviewRouter(
            store: store, sessions: ReviewSessions(),
            hosts: ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080)), publishing: publishing, streetMap: streetMap))
}

extension RawConnection {
    /// One whole response, its head and its Content-Length body, without waiting for the
    /// server to close the connection (an idle keep-alive would cost its 30 s timeout).
    func readResponse() -> String {
        var data = Data()
        var byte: UInt8 = 0
        while !data.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard recv(fd, &byte, 1, 0) == 1 else { return String(decoding: data, as: UTF8.self) }
            data.append(byte)
        }
        let head = String(decoding: data, as: UTF8.self).lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = [UInt8](repeating: 0, count: 4096)
        var got = 0
        while got < length {
            let n = body.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, min($0.count, length - got), 0) }
            guard n > 0 else { break }
            data.append(contentsOf: body[0..<n])
            got += n
        }
        return String(decoding: data, as: UTF8.self)
    }
}

extension PublishingSetup.Keys {
    /// The keys as the daemon's table spells them (`DaemonConfiguration.publishing`, which this target does not see).
    static let daemon = Self(hubURL: "sync.hub_url", shareTrips: "privacy.share_trips")
}
