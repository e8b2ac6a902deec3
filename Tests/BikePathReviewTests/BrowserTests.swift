import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathReview

/// The review page in a real headless chromium (Debian's, through chromedriver):
/// a rider pairs, opens the list and a draft, drops one candidate, changes one
/// kind, adds one by tapping the path and confirms; a second confirm from a stale
/// tab is refused on the page. Writes docs/review-list.png and docs/review-draft.png.
@Suite(.timeLimit(.minutes(5))) struct BrowserTests {
    @Test func riderReviewsADraftInARealBrowser() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("chromium and chromium-driver are missing, and CI=true (scripts/ensure-deps.sh installs them)")
            }
            print("skipped: no chromium / chromedriver (apt-get install chromium chromium-driver)")
            return
        }
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 2, seconds: 600)
        let id = try store.listDrafts()[0].id
        let shown = try store.draft(id).obstacles.filter { !$0.heldBack }
        let newKind: ObstacleKind = shown[1].kind == .debris ? .pothole : .debris

        let (ports, portSink) = AsyncStream.makeStream(of: Int.self)
        let app = try buildReviewApplication(store: store, address: ReviewAddress(host: "127.0.0.1", port: 0),
                                             logger: Logger(label: "review-test")) { portSink.yield($0) }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "review-test"))
        let server = Task { try await group.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let site = "http://127.0.0.1:\(port)"

        let browser = try WebDriver(log: URL(fileURLWithPath: dir.file("chromedriver.log")))
        do {
            try await browser.start()
            try await browser.open(site + "/")
            #expect(try await browser.currentURL() == site + "/pair")
            try await browser.type("#code", try store.issuePairingCode().code)
            try await browser.click("#pair")
            #expect(try await browser.text("h1") == "Drafts to review")
            try await browser.screenshot(to: packageRoot + "/docs/review-list.png")

            try await browser.click("#draft-1")
            #expect(try await browser.text("#state") == "pending")
            let stale = try await browser.windowHandle()
            try await browser.screenshot(to: packageRoot + "/docs/review-draft.png")

            // The edits happen in a second tab; the first keeps the page as it was (a stale confirm button).
            let tab = try await browser.newTab()
            try await browser.switchTo(tab)
            try await browser.open(site + "/drafts/\(id)")
            try await browser.click("#drop-1")
            #expect(try await browser.text("#message") == "Candidate dropped.")
            try await browser.click("#kind-2 option[value='\(newKind.rawValue)']")
            try await browser.click("#setkind-2")
            #expect(try await browser.text("#message") == "Kind changed.")
            try await browser.click("#add-kind option[value='pothole']")
            try await browser.click("#map")  // WebDriver clicks the middle: the straight synthetic path runs through it
            #expect(try await browser.text("#message") == "Obstacle added.")
            try await browser.click("#confirm")
            #expect(try await browser.text("#message").hasPrefix("Confirmed"))
            #expect(try await browser.text("#state") == "queued")

            try await browser.switchTo(stale)
            try await browser.click("#confirm")
            #expect(try await browser.text("#message") == "draft \(id) is queued; it cannot become confirmed")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
        await group.triggerGracefulShutdown()
        _ = try? await server.value

        let d = try store.draft(id)
        #expect(d.state == .queued)
        #expect(d.edits.map(\.action) == ["drop", "set-kind", "add"])
        #expect(d.obstacles.filter(\.dropped).map(\.id) == [shown[0].id])
        #expect(d.obstacles.first { $0.id == shown[1].id }?.kind == newKind)
        let added = d.obstacles.filter { $0.origin == "rider" }
        #expect(added.map(\.kind) == [.pothole])
        #expect(try store.listDrafts()[1].state == .pending)
    }
}
