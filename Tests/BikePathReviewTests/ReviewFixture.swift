import BikePathCore
import BikePathFixtures
import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import BikePathReview

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

/// The router as `bikepathd review` on 127.0.0.1 builds it; by default with no hub set (the bundled example).
func reviewApp(_ store: Store, publishing: PublishingSetup = PublishingSetup(hubConfigured: false, fileAllowsTrips: true))
    throws -> some ApplicationProtocol
{
    Application(
        router: try buildReviewRouter(
            store: store, sessions: ReviewSessions(),
            hosts: ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080)), publishing: publishing))
}
