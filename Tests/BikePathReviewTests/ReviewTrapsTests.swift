import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import GRDB
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

/// The page's traps for a thumb, each closed: `#N` in a URL, a tap on the map that would add,
/// a reject with no way back, a confirm that does not say where the ride goes, sharing turned
/// on against the file, and words the rider does not speak.
@Suite(.ownThreads) struct ReviewTrapsTests {
    func post(_ client: some TestClientProtocol, _ p: Paired, _ uri: String, _ form: String = "") async throws -> (
        HTTPResponse.Status, String, String?
    ) {
        try await client.execute(
            uri: uri, method: .post, headers: p.headers,
            body: ByteBuffer(string: (["csrf=\(p.csrf)"] + (form.isEmpty ? [] : [form])).joined(separator: "&"))
        ) {
            ($0.status, String(buffer: $0.body), $0.headers[.location])
        }
    }

    func get(_ client: some TestClientProtocol, _ p: Paired, _ uri: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: uri, method: .get, headers: p.headers) { ($0.status, String(buffer: $0.body)) }
    }

    /// `#N` is documented; in a URL it travels as `%23N`, which names candidate N, not a literal id.
    @Test func anObstacleByItsNumberInAURL() async throws {
        try await withPairedDraft { store, id, client, p in
            let first = try #require(try await store.draft(id).obstacles.first { $0.reviewRank == 2 })
            let (status, _, _) = try await post(client, p, "/drafts/\(id)/obstacles/%232/drop")
            #expect(status == .seeOther)
            #expect(try await store.draft(id).obstacles.first { $0.id == first.id }?.dropped == true)
        }
    }

    /// A tap on the draft's map opens a candidate; adding is a mode that shows the spot before it adds.
    @Test func tappingTheMapAddsNothingAndAddModeAsksFirst() async throws {
        try await withPairedDraft { store, id, client, p in
            let before = try await store.draft(id)
            let map = DraftMap(before, shown: before.obstacles.filter { !$0.heldBack }).projection
            #expect(map.width <= 328)  // fits a 360 px screen with the page's padding
            var (status, html) = try await get(client, p, "/drafts/\(id)")
            #expect(!html.contains(#"type="image""#))  // the draft page's map submits nothing
            #expect(html.contains(##"<a href="#cand-1" id="dot-1">"##) && html.contains(#"id="cand-1""#))
            #expect(html.contains(#"href="/drafts/\#(id)/add""#))
            (status, html) = try await get(client, p, "/drafts/\(id)/add")
            #expect(status == .ok && html.contains(#"<input type="image""#) && !html.contains("add-confirm"))
            let x = Int(map.width / 2), y = Int(map.height / 2) + 3
            (status, html) = try await get(client, p, "/drafts/\(id)/add?kind=irregularity&map.x=\(x)&map.y=\(y)")
            #expect(status == .ok && html.contains(#"id="add-confirm">Add an irregularity here<"#))
            #expect(html.contains("map.svg?spot=") && html.contains(#"name="map.x" value="\#(x)""#))
            (status, html) = try await get(client, p, "/drafts/\(id)/add?kind=bump&map.x=\(x)&map.y=2")
            #expect(html.contains("That tap is off the path") && !html.contains("add-confirm"))
            #expect(try await store.draft(id) == before)  // looking and picking changed nothing
            let svg = try await client.execute(uri: "/drafts/\(id)/map.svg?spot=10,20", method: .get, headers: p.headers) {
                String(buffer: $0.body)
            }
            #expect(svg.contains(#"id="spot" cx="10.0" cy="20.0""#))
            let (added, _, location) = try await post(client, p, "/drafts/\(id)/obstacles", "kind=irregularity&map.x=\(x)&map.y=\(y)")
            #expect(added == .seeOther && location == "/drafts/\(id)?done=added")
            #expect(try await store.draft(id).obstacles.filter { $0.origin == "rider" }.map(\.kind) == [.irregularity])
        }
    }

    /// Reject asks once more, and a rejection can be taken back.
    @Test func rejectAsksFirstAndCanBeUndone() async throws {
        try await withPairedDraft { store, id, client, p in
            var (status, html) = try await get(client, p, "/drafts/\(id)")
            #expect(!html.contains("/reject\" ") && html.contains(#"<a class="btn danger" id="reject" href="/drafts/\#(id)/reject">"#))
            (status, html) = try await get(client, p, "/drafts/\(id)/reject")
            #expect(status == .ok && html.contains("Reject this ride?") && html.contains(#"id="reject-confirm""#))
            #expect(try await store.draft(id).state == .pending)  // asking changed nothing
            var location: String?
            (status, _, location) = try await post(client, p, "/drafts/\(id)/reject")
            #expect(status == .seeOther && location == "/drafts/\(id)?done=rejected")
            (status, html) = try await get(client, p, "/drafts/\(id)?done=rejected")
            #expect(
                html.contains("Undo reject") && html.contains(#"action="/drafts/\#(id)/reopen""#)
                    && html.contains(#"<b id="state">rejected</b>"#))
            (status, html) = try await get(client, p, "/drafts/\(id)/reject")
            #expect(status == .conflict)
            (status, _, location) = try await post(client, p, "/drafts/\(id)/reopen")
            #expect(status == .seeOther && location == "/drafts/\(id)?done=reopened")
            #expect(try await store.draft(id).state == .pending)
            (status, html, _) = try await post(client, p, "/drafts/\(id)/reopen")
            #expect(status == .conflict && html.contains("is to review already; nothing to change"))
        }
    }

    /// The confirm notice says where the draft goes, by the CLI's rule; the page shows the switch.
    @Test func confirmSaysWhatHappens() async throws {
        let cases: [(PublishingSetup, Bool, String, String)] = [
            (
                PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon), false, "confirmed-no-hub",
                "Confirmed: the draft is frozen and stays on this device: no hub is configured (sync.hub_url)."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: true, keys: .daemon), false, "confirmed-sharing-off",
                "Confirmed: the draft is frozen and stays on this device: trip sharing is off — `bikepathd sync consent trips on` sends it."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: false, keys: .daemon), false, "confirmed-not-allowed",
                "Confirmed: the draft is frozen and stays on this device: privacy.share_trips is false in the configuration file."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: true, keys: .daemon), true, "confirmed",
                "Confirmed: the draft is frozen and queued; the next sync publishes it to the hub."
            ),
        ]
        for (setup, sharing, key, text) in cases {
            try await withPairedDraft(publishing: setup) { store, id, client, p in
                var (_, html) = try await get(client, p, "/drafts/\(id)")
                #expect(html.contains(#"id="sharing""#))
                #expect(html.contains(#"id="sharing-on""#) == setup.fileAllowsTrips, "\(key)")
                if sharing {
                    #expect(html.contains("Trip sharing is off: a confirmed ride is held on this device until you turn it on."))
                    let (status, _, location) = try await post(client, p, "/drafts/\(id)/sharing", "trips=on")
                    #expect(status == .seeOther && location == "/drafts/\(id)?done=sharing-on")
                    #expect(try await store.consent().tripsAndDrafts)
                    (_, html) = try await get(client, p, "/drafts/\(id)")
                    #expect(html.contains("Trip sharing is on and a hub is set") && html.contains(#"id="sharing-off""#))
                }
                let (status, _, location) = try await post(client, p, "/drafts/\(id)/confirm")
                #expect(status == .seeOther && location == "/drafts/\(id)?done=\(key)")
                (_, html) = try await get(client, p, location ?? "")
                #expect(html.contains(text.replacingOccurrences(of: "`", with: "&#96;")) || html.contains(text), "\(key): \(html)")
                #expect(!html.contains("queued for publishing"))
                // The CLI's rule and the page's are one: ConsentPolicy calls the same PublishingSetup.hold.
                #expect(try await store.confirmedDraftHold(setup).map { ReviewViews.confirmedNotice($0) } ?? "confirmed" == key)
            }
        }
    }

    @Test func sharingCannotBeTurnedOnAgainstTheFile() async throws {
        try await withPairedDraft(publishing: PublishingSetup(hubConfigured: true, fileAllowsTrips: false, keys: .daemon)) {
            store, id, client, p in
            let (status, html, _) = try await post(client, p, "/drafts/\(id)/sharing", "trips=on")
            #expect(status == .badRequest && html.contains("privacy.share_trips is false"))
            #expect(try await !store.consent().tripsAndDrafts)
        }
    }

    /// The words: "needs maintenance", edits in words, plurals, "an".
    @Test func thePageSpeaksToTheRider() async throws {
        try await withPairedDraft { store, id, client, p in
            let d0 = try await store.draft(id)
            let shown = d0.obstacles.filter { !$0.heldBack }
            _ = try await post(client, p, "/drafts/\(id)/obstacles/\(shown[0].id)/drop")
            _ = try await post(
                client, p, "/drafts/\(id)/obstacles/\(shown[1].id)/kind", "kind=\(shown[1].kind == .debris ? "bump" : "debris")")
            _ = try await post(client, p, "/drafts/\(id)/path-status", "status=requiresMaintenance")
            let (_, html) = try await get(client, p, "/drafts/\(id)")
            #expect(
                !html.contains(">requiresMaintenance<")
                    && html.contains(#"<option value="requiresMaintenance" selected>needs maintenance</option>"#))
            #expect(html.contains("path <b id=\"path-word\">needs maintenance</b>"))
            #expect(html.contains("<li>Dropped candidate 1.</li>"))
            #expect(html.contains("<li>Changed candidate 2 from \(shown[1].kind.rawValue) to"))
            #expect(html.contains("<li>Rated the path needs maintenance (was not rated).</li>"))
            let edits = String(html[html.range(of: #"<ol id="edits">"#)!.lowerBound...])
            #expect(!edits.contains(shown[0].id) && !edits.contains("{"))  // no JSON, no UUIDs
            #expect(!html.contains("candidate(s)") && !html.contains("0 weaker"))
            let (status, bad, _) = try await post(client, p, "/drafts/\(id)/path-status", "status=awful")
            #expect(status == .badRequest && bad.contains("awful is not a path status"))
            let sharing = SharingView(text: "", canTurnOn: false, canTurnOff: false)
            var d = d0
            for i in d.obstacles.indices { d.obstacles[i].heldBack = false }
            #expect(ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack == nil)
            d.obstacles[d.obstacles.count - 1].heldBack = true
            #expect(
                ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack
                    == "1 weaker candidate was not asked about; it still counts for road quality.")
            d.obstacles[d.obstacles.count - 2].heldBack = true
            #expect(
                ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack
                    == "2 weaker candidates were not asked about; they still count for road quality.")
        }
    }
}
