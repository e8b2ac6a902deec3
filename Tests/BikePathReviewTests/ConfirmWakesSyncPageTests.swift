import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
@testable import BikePathReview

/// A confirmation wakes sync, the page's side: a confirmation on the page wakes the sync loop of the process
/// that serves it (`run`'s engine, in-process) when the ride may leave, and says it is being sent;
/// when it may not, nothing is woken and the notice says why.
@Suite(.ownThreads) struct ConfirmWakesSyncPageTests {
    private func confirm(publishing: PublishingSetup, consent: Bool) async throws -> (location: String?, wakes: Int) {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1, seconds: 200)
        try store.setConsent(.tripsAndDrafts, consent)
        let id = try await store.listDrafts()[0].id
        let wakes = Mutex(0)
        let app = Application(
            router: try buildReviewRouter(
                store: store, sessions: ReviewSessions(), hosts: ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080)),
                publishing: publishing, syncNow: { wakes.withLock { $0 += 1 } }))
        let location = try await app.test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            let location = try await client.execute(
                uri: "/drafts/\(id)/confirm", method: .post, headers: p.headers, body: ByteBuffer(string: "csrf=\(p.csrf)")
            ) { $0.headers[.location] }
            let html = try await client.execute(uri: location ?? "/", method: .get, headers: p.headers) { String(buffer: $0.body) }
            if location?.hasSuffix("done=confirmed-sending") == true {
                #expect(html.contains("is being sent to the hub now"))
            }
            return location
        }
        return (location, wakes.withLock { $0 })
    }

    @Test("a ride that may leave wakes sync and says it is being sent")
    func wakes() async throws {
        let r = try await confirm(publishing: PublishingSetup(hubConfigured: true, fileAllowsTrips: true, keys: .daemon), consent: true)
        #expect(r.location?.hasSuffix("?done=confirmed-sending") == true, "\(r.location ?? "-")")
        #expect(r.wakes == 1)
    }

    @Test("a ride that stays on the device wakes nothing and says why")
    func staysPut() async throws {
        let off = try await confirm(publishing: PublishingSetup(hubConfigured: true, fileAllowsTrips: true, keys: .daemon), consent: false)
        #expect(off.location?.hasSuffix("?done=confirmed-sharing-off") == true && off.wakes == 0)
        let noHub = try await confirm(
            publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon), consent: true)
        #expect(noHub.location?.hasSuffix("?done=confirmed-no-hub") == true && noHub.wakes == 0)
    }
}
