import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import BikePathReview

/// Every route of the review page in process (HummingbirdTesting `.router`),
/// with the real store underneath: right and wrong ids, right and wrong states.
@Suite(.ownThreads) struct ReviewRouteTests {
    @Test func unpairedPagesSendToPairingAndAWrongCodeIsRefused() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        try await reviewApp(store).test(.router) { client in
            for uri in ["/", "/trips", "/drafts/1", "/drafts/1/map.svg"] {
                try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .seeOther, "\(uri)")
                    #expect(response.headers[.location] == "/pair")
                }
            }
            try await client.execute(uri: "/pair", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains(#"<form method="post" action="/pair">"#))
            }
            let code = try store.issuePairingCode()
            let wrong = code.code == "000000" ? "000001" : "000000"
            try await client.execute(
                uri: "/pair", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "code=\(wrong)")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(response.headers[.setCookie] == nil)
                #expect(String(buffer: response.body).contains("wrong code (4 tries left)"))
            }
            let paired = try await pair(client, store: store, draftID: try await store.listDrafts()[0].id)
            #expect(!paired.csrf.isEmpty)
            // The code pairs one phone only.
            try await client.execute(
                uri: "/pair", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "code=\(code.code)")
            ) { response in
                #expect(response.status == .forbidden)
                #expect(String(buffer: response.body).contains("no pairing code is waiting"))
            }
        }
    }

    @Test func fiveWrongCodesVoidTheCode() throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        let code = try store.issuePairingCode()
        let wrong = code.code == "999999" ? "999998" : "999999"
        // "1 try left", not "1 tries left".
        // The loop below says it for every count; this names the singular on its own.
        #expect(Store.pairingAttempts == 5)
        for left in (0..<Store.pairingAttempts).reversed() {
            #expect(
                throws: StoreError.pairingRefused(
                    left == 0
                        ? "wrong code 5 times; the code is void — run `bikepathd review pair` again"
                        : left == 1 ? "wrong code (1 try left)" : "wrong code (\(left) tries left)")
            ) { try store.redeemPairingCode(wrong) }
        }
        #expect(throws: StoreError.pairingRefused("no pairing code is waiting; run `bikepathd review pair`")) {
            try store.redeemPairingCode(code.code)
        }
        let late = try store.issuePairingCode(now: Date(timeIntervalSinceNow: -Store.pairingLifetimeSeconds - 1))
        #expect(throws: StoreError.pairingRefused("the code expired; run `bikepathd review pair` for a new one")) {
            try store.redeemPairingCode(late.code)
        }
    }

    @Test func listDraftAndTripsPagesShowTheStore() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let drafts = try await store.listDrafts()
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: drafts[0].id)
            try await client.execute(uri: "/", method: .get, headers: p.headers) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .ok)
                #expect(html.contains(#"href="/drafts/\#(drafts[0].id)" id="draft-1""#))
                #expect(html.contains(#"id="draft-2""#))
                #expect(html.contains("2026-09-21"))  // SyntheticRides start at 1.79e9 s after 1970
                #expect(html.contains(ReviewFormat.distance(drafts[0].distanceMeters)))
                #expect(html.contains("4 min 59 s"))
            }
            try await client.execute(uri: "/drafts/\(drafts[0].id)", method: .get, headers: p.headers) { response in
                let html = String(buffer: response.body)
                let d = try await store.draft(drafts[0].id)
                let shown = d.obstacles.filter { !$0.heldBack }
                #expect(response.status == .ok)
                #expect(html.contains(#"id="cand-\#(shown.count)""#) && !html.contains(#"id="cand-\#(shown.count + 1)""#))
                #expect(html.components(separatedBy: #"<svg class="plot""#).count - 1 == shown.count)  // one window plot each
                #expect(html.contains("km/h") && html.contains("along the path"))
                #expect(html.contains(#"<b id="state">to review</b>"#))
            }
            // A unique prefix and a list number name the same draft.
            for ref in [String(drafts[1].id.prefix(8)), "2"] {
                try await client.execute(uri: "/drafts/\(ref)", method: .get, headers: p.headers) { response in
                    #expect(response.status == .ok)
                    #expect(String(buffer: response.body).contains(#"action="/drafts/\#(drafts[1].id)/confirm""#))
                }
            }
            try await client.execute(uri: "/drafts/\(drafts[0].id)/map.svg", method: .get, headers: p.headers) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "image/svg+xml")
                let svg = String(buffer: response.body)
                #expect(svg.hasPrefix("<svg") && svg.contains("<polyline") && svg.contains(DraftMap.colour(.optimal)) == true)
            }
            try await client.execute(uri: "/trips", method: .get, headers: p.headers) { response in
                let html = String(buffer: response.body)
                #expect(response.status == .ok)
                let stats = try await store.statistics()
                #expect(html.contains(ReviewFormat.distance(stats.distanceMeters)))
                #expect(html.contains(String(format: "%.2f kg", stats.co2AvoidedGrams / 1000)))
                #expect(html.contains("The first comes at 100.00 km"))
            }
            for uri in ["/drafts/nope", "/drafts/9999", "/drafts/nope/map.svg"] {
                try await client.execute(uri: uri, method: .get, headers: p.headers) { response in
                    #expect(response.status == .notFound, "\(uri)")
                    #expect(String(buffer: response.body).contains("no draft"))
                }
            }
        }
    }

    @Test func actionsGoThroughTheStoreAndRefuseWrongIdsAndStates() async throws {
        try await withPairedDraft { store, id, client, p in
            let other = try await store.listDrafts()[1].id
            let before = try await store.draft(id)
            let shown = before.obstacles.filter { !$0.heldBack }
            func post(_ uri: String, _ form: String) async throws -> (HTTPResponse.Status, String) {
                try await client.execute(
                    uri: uri, method: .post, headers: p.headers,
                    body: ByteBuffer(string: (["csrf=\(p.csrf)"] + (form.isEmpty ? [] : [form])).joined(separator: "&"))
                ) {
                    ($0.status, String(buffer: $0.body))
                }
            }
            var (status, html) = try await post("/drafts/\(id)/obstacles/\(shown[0].id)/drop", "")
            #expect(status == .seeOther)
            let newKind: ObstacleKind = shown[1].kind == .debris ? .pothole : .debris
            (status, _) = try await post("/drafts/\(id)/obstacles/\(shown[1].id)/kind", "kind=\(newKind.rawValue)")
            #expect(status == .seeOther)
            // A tap in the middle of the map: the straight synthetic path runs through it.
            let map = DraftMap(before, shown: shown).projection
            (status, _) = try await post(
                "/drafts/\(id)/obstacles", "kind=bump&map.x=\(Int(map.width / 2))&map.y=\(Int(map.height / 2) + 3)")
            #expect(status == .seeOther)
            (status, html) = try await post("/drafts/\(id)/obstacles", "kind=bump&map.x=\(Int(map.width / 2))&map.y=2")
            #expect(status == .badRequest && html.contains("that tap is off the path"))
            (status, html) = try await post("/drafts/\(id)/obstacles", "kind=crater&map.x=1&map.y=1")
            #expect(status == .badRequest && html.contains("crater is not an obstacle kind"))
            (status, _) = try await post("/drafts/\(id)/path-status", "status=sufficient")
            #expect(status == .seeOther)
            (status, _) = try await post("/drafts/\(id)/path-status", "status=medium")
            (status, _) = try await post("/drafts/\(id)/undo", "")
            #expect(status == .seeOther)
            (status, html) = try await post("/drafts/\(id)/obstacles/nope/drop", "")
            #expect(status == .notFound && html.contains("no obstacle with id nope"))
            (status, html) = try await post("/drafts/\(id)/obstacles/\(shown[0].id)/drop", "")
            #expect(status == .badRequest && html.contains("already dropped"))
            (status, html) = try await post("/drafts/nope/confirm", "")
            #expect(status == .notFound)

            var d = try await store.draft(id)
            #expect(d.obstacles.first { $0.id == shown[0].id }?.dropped == true)
            #expect(d.obstacles.first { $0.id == shown[1].id }?.kind == newKind)
            #expect(d.obstacles.filter { $0.origin == "rider" }.map(\.kind) == [.bump])
            #expect(d.pathStatus == .sufficient)  // medium was undone
            #expect(d.edits.map(\.action) == ["drop", "set-kind", "add", "set-path-status"])

            (status, _) = try await post("/drafts/\(id)/confirm", "")
            #expect(status == .seeOther)
            (status, html) = try await post("/drafts/\(id)/confirm", "")
            #expect(status == .conflict && html.contains("draft \(id) is confirmed already; nothing to change"))
            (status, html) = try await post("/drafts/\(id)/obstacles/\(shown[2].id)/drop", "")
            #expect(status == .conflict && html.contains("only drafts to review can be edited"))
            (status, _) = try await post("/drafts/\(id)/undo", "")
            #expect(status == .conflict)
            (status, _) = try await post("/drafts/\(other)/reject", "")
            #expect(status == .seeOther)
            (status, html) = try await post("/drafts/\(other)/reject", "")
            #expect(status == .conflict && html.contains("rejected already; nothing to change"))
            d = try await store.draft(id)
            #expect(d.state == .queued && d.edits.count == 4)
            #expect(try await store.draft(other).state == .rejected)
        }
    }

    @Test func changesWithoutTheSessionOrWithABadTokenChangeNothing() async throws {
        try await withPairedDraft { store, id, client, p in
            let obstacle = try await store.draft(id).obstacles[0].id
            let before = try await store.draft(id)
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            let attempts: [(HTTPFields, String)] = [
                (form, "csrf=\(p.csrf)"),  // no session cookie
                ([.cookie: "\(ReviewSessions.cookieName)=forged", .contentType: "application/x-www-form-urlencoded"], "csrf=\(p.csrf)"),
                (p.headers, ""),  // no token
                (p.headers, "csrf=" + String(repeating: "0", count: 64)),  // wrong token
            ]
            for (headers, body) in attempts {
                for path in ["confirm", "reject", "undo", "obstacles/\(obstacle)/drop", "path-status"] {
                    try await client.execute(
                        uri: "/drafts/\(id)/\(path)", method: .post, headers: headers,
                        body: ByteBuffer(string: ([body, "status=optimal", "kind=bump"].filter { !$0.isEmpty }).joined(separator: "&"))
                    ) { response in
                        #expect(response.status == .forbidden, "\(path) \(body)")
                        #expect(String(buffer: response.body).contains("nothing was changed"))
                    }
                }
            }
            #expect(try await store.draft(id) == before)
        }
    }
}
