import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import BikePathReview

/// One vocabulary for the rider. Every draft state, path status and obstacle kind is walked
/// through the CLI (`bikepathd` as a process, on a real SQLite store) and the review page (the router,
/// on the same store), and each side's word is compared with the other's: a difference fails.
@Suite(.ownThreads, .timeLimitOnceRunning(.minutes(4))) struct VocabularyTests {
    /// The text between `open` and the next `<` of `html` ("<b id=\"state\">confirmed</b>").
    private func element(_ html: String, _ open: String) -> String? {
        guard let start = html.range(of: open) else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "<" })
    }

    private func get(_ client: some TestClientProtocol, _ p: Paired, _ uri: String) async throws -> String {
        try await client.execute(uri: uri, method: .get, headers: p.headers) { String(buffer: $0.body) }
    }

    @Test("every path status reads the same on the page and in the CLI, and the CLI takes its word, JSON value and prefix")
    func pathStatuses() async throws {
        let bin = try #require(builtExecutable("bikepathd"), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1, seconds: 200)
        let db = dir.file("s.db")
        let id = try await store.listDrafts()[0].id
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            var previous: PathStatus?
            for status in PathStatus.allCases {
                // The word as the page taught it, its JSON value, then the shortest prefix the CLI takes.
                let typed = [status.word, status.rawValue, String(status.word.prefix(status == .medium ? 2 : 1))]
                for (n, text) in typed.enumerated() {
                    if n > 0 {
                        // Step away and back so every spelling makes an edit.
                        let other = PathStatus.allCases.first { $0 != status }!
                        let away = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--path-status", other.rawValue])
                        #expect(away.status == 0, "\(away.err)")
                        previous = other
                    }
                    let r = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--path-status", text])
                    #expect(r.status == 0, "--path-status \(text): \(r.err)")
                    let cliWord = r.out.split(separator: "\n").first { $0.hasPrefix("draft ") && $0.contains("path status: ") }
                        .map { String($0[$0.range(of: "path status: ")!.upperBound...]) }
                    let html = try await get(client, p, "/drafts/\(id)")
                    let pageWord = element(html, #"<b id="path-word">"#)
                    #expect(cliWord == pageWord && pageWord == status.word, "CLI \(cliWord ?? "-"), page \(pageWord ?? "-") for \(text)")
                    // The edit reads in words on both sides, not `set-path-status {"from":…}`.
                    let sentence = "Rated the path \(status.word) (was \(previous?.word ?? "not rated"))."
                    #expect(r.out.contains("  " + sentence), "\(r.out)")
                    #expect(html.contains(sentence))
                    #expect(!r.out.contains("{\"") && !r.out.contains("requiresMaintenance"), "\(r.out)")
                    previous = status
                }
            }
        }
        // A word that names none is refused with the words it takes; case, `-` and `_` do not matter.
        let unknown = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--path-status", "bumpy"])
        #expect(unknown.status == 64 && unknown.err.contains("\"needs maintenance\""), "\(unknown.err)")
        #expect(try PathStatus.parse("Needs-Maintenance") == .requiresMaintenance)
        #expect(throws: VocabularyError.self) { try PathStatus.parse("") as PathStatus }
    }

    @Test("every draft state reads the same in `drafts list`, `drafts show` and on the page; `--state` takes the word")
    func draftStates() async throws {
        let bin = try #require(builtExecutable("bikepathd"), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 4, seconds: 200)
        let db = dir.file("s.db")
        let ids = try await store.listDrafts().map(\.id)
        #expect(ids.count == 4)
        // 1 stays to review; 2 is confirmed (queued at once); 3 is published; 4 is rejected.
        #expect(try await runProcess(bin, ["drafts", "confirm", "2", "--db", db]).status == 0)
        #expect(try await runProcess(bin, ["drafts", "confirm", "3", "--db", db]).status == 0)
        try store.markDraftSynced(ids[2])
        #expect(try await runProcess(bin, ["drafts", "reject", "4", "--db", db]).status == 0)
        let states = try await store.listDrafts().map(\.state)
        #expect(states == [.pending, .queued, .synced, .rejected])
        // Every state a draft can be in is walked, `confirmed` itself through the page's word for `queued`.
        #expect(Set(states.map(\.word)) == Set(DraftState.allCases.map(\.word)))
        let list = try await runProcess(bin, ["drafts", "list", "--db", db])
        #expect(list.status == 0, "\(list.err)")
        let rows = list.out.split(separator: "\n").map(String.init)
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: ids[0])
            let page = try await get(client, p, "/")
            for (i, id) in ids.enumerated() {
                let word = states[i].word
                // The page's list: the row of draft i+1 ends with its state cell.
                let row = try #require(page.range(of: #"id="draft-\#(i + 1)""#).map { String(page[$0.upperBound...]) })
                let cells = row.components(separatedBy: "</tr>")[0].components(separatedBy: "<td>")
                let pageListWord = cells.last?.components(separatedBy: "</td>").first
                #expect(pageListWord == word, "page list row \(i + 1): \(pageListWord ?? "-")")
                #expect(rows[i].contains("  \(word)  ") || rows[i].contains("  \(word) "), "CLI list row \(i + 1): \(rows[i])")
                let show = try await runProcess(bin, ["drafts", "show", "\(i + 1)", "--db", db])
                let html = try await get(client, p, "/drafts/\(id)")
                let pageWord = element(html, #"<b id="state">"#)
                #expect(show.out.contains("state: \(word)  ") && pageWord == word, "CLI \(show.out.prefix(120)), page \(pageWord ?? "-")")
                #expect(!show.out.contains("queued") && !show.out.contains("synced") && !show.out.contains("state: pending"))
            }
            // The outbox in words: the page's totals and `sync status` count by one rule.
            let trips = try await get(client, p, "/trips")
            let status = try await runProcess(bin, ["sync", "status", "--db", db])
            let cliOutbox = status.out.split(separator: "\n").first { $0.hasPrefix("outbox: ") }.map { String($0.dropFirst(8)) }
            #expect(cliOutbox != nil && element(trips, #"<p id="outbox">Outbox: "#) == cliOutbox, "\(status.out)")
        }
        // The filter takes the word, the JSON value and a prefix; "confirmed" finds the queued draft.
        for (text, expected) in [("to review", [1]), ("pending", [1]), ("confirmed", [2]), ("publ", [3]), ("synced", [3]), ("rej", [4])] {
            let r = try await runProcess(bin, ["drafts", "list", "--db", db, "--state", text, "--json"])
            #expect(r.status == 0, "--state \(text): \(r.err)")
            let listed = (try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])?["drafts"] as? [[String: Any]]
            #expect(listed?.compactMap { $0["id"] as? String } == expected.map { ids[$0 - 1] }, "--state \(text)")
            // JSON values stay stable: the queued draft is still `queued` in JSON.
            if text == "confirmed" { #expect(listed?.first?["state"] as? String == "queued") }
        }
        let ambiguous = try await runProcess(bin, ["drafts", "list", "--db", db, "--state", "p"])
        #expect(ambiguous.status == 64 && ambiguous.err.contains("could be the draft state"), "\(ambiguous.err)")
    }

    @Test("every obstacle kind reads the same on the page and in the CLI; --set-kind takes a prefix")
    func obstacleKinds() async throws {
        let bin = try #require(builtExecutable("bikepathd"), "bikepathd must be built next to the tests")
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1, seconds: 200)
        let db = dir.file("s.db")
        let id = try await store.listDrafts()[0].id
        let first = try #require(try await store.draft(id).shownObstacles.first)
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            for kind in ObstacleKind.allCases where kind != first.kind {
                let r = try await runProcess(bin, ["drafts", "edit", "1", "--db", db, "--set-kind", "\(first.id)=\(kind.word.prefix(3))"])
                #expect(r.status == 0, "\(r.err)")
                #expect(r.out.contains("\(first.id)  \(kind.word)  "), "\(r.out)")
                let html = try await get(client, p, "/drafts/\(id)")
                #expect(element(html, #"<b class="kind">"#) == kind.word)
                #expect(html.contains(#"<option value="\#(kind.rawValue)" selected>\#(kind.word)</option>"#))
            }
        }
    }
}
