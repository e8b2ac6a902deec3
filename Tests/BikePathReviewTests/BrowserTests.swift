import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathReview
import Synchronization

/// The review page in a real headless chromium (Debian's, through chromedriver) at
/// a common phone's width (390 px), on the real bundled ride: a
/// rider pairs, opens the list and a draft, taps a candidate's dot (which opens it
/// and adds nothing), rejects (after a question) and takes it back, drops one
/// candidate, changes one kind, adds one in add mode and confirms; a second confirm
/// from a stale tab is refused on the page. Every page fits 360 px and every button
/// is at least 44 px tall. Takes review-list.png and review-draft.png (`Paths.screenshot`: docs/ when asked).
@Suite(.timeLimitOnceRunning(.minutes(5)), .ownThreads) struct BrowserTests {
    /// The bundled ride, stored by `bikepathd run --replay` as on the Pi.
    static func storeOfTheBundledRide(_ dir: TempDir) throws -> Store {
        let bin = try #require(builtExecutable("bikepathd"), "bikepathd must be built next to the tests")
        let config = dir.file("bikepathd.toml")
        try """
        [store]
        path = "\(dir.file("ride.sqlite"))"
        [status]
        socket = "\(dir.file("status.sock"))"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let run = try runProcess(bin, ["run", "--config", config, "--replay", packageRoot + "/Recordings/allthedocks-GX010056.bpr"])
        #expect(run.status == 0, "\(run.err)")
        return try Store.open(path: dir.file("ride.sqlite"))
    }

    /// Fails when the page is wider than the viewport or a control is shorter than 44 px.
    func checkFitsAndTargets(_ browser: WebDriver, _ what: String) async throws {
        // JSON numbers arrive as Int or Double depending on their value: read both.
        func numbers(_ value: Any) -> [Double] { (value as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
        let width = numbers(try await browser.execute("return [document.documentElement.scrollWidth, window.innerWidth];"))
        #expect(width.count == 2 && width[0] <= width[1], "\(what): page \(width) wider than the screen")
        let heights = numbers(
            try await browser.execute(
                """
                return Array.from(document.querySelectorAll('button, select, a.btn, nav a, td a')).map(e => e.getBoundingClientRect().height);
                """))
        #expect(!heights.isEmpty && heights.allSatisfy { $0 >= 44 }, "\(what): control heights \(heights)")
        // The Content-Security-Policy allows the served stylesheet and no inline style:
        // it applies, and a map is as large as what it shows (the box of the SVG or the add mode's
        // image plus its 1 px border), not collapsed for want of an inline size.
        let font = try await browser.execute("return getComputedStyle(document.body).fontFamily;") as? String
        #expect(font == "sans-serif", "\(what): the stylesheet does not apply (font \(font ?? "none"))")
        let maps = numbers(
            try await browser.execute(
                """
                return Array.from(document.querySelectorAll('div.map')).flatMap(m => { const r = m.getBoundingClientRect(), \
                c = m.lastElementChild.getBoundingClientRect(); return [r.width - c.width, r.height - c.height, c.height]; });
                """))
        for map in stride(from: 0, to: maps.count, by: 3) {
            #expect(maps[map] == 2 && maps[map + 1] == 2 && maps[map + 2] > 100, "\(what): map box \(maps)")
        }
    }

    /// A phone-sized browser (390 × 844) for `body`, quit afterwards whether it throws or not.
    func withPhoneBrowser(_ dir: TempDir, _ body: (WebDriver) async throws -> Void) async throws {
        let browser = try WebDriver(log: URL(fileURLWithPath: dir.file("chromedriver.log")))
        do {
            try await browser.start()
            try await browser.emulatePhone(width: 390, height: 844)
            try await body(browser)
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }

    @Test func riderReviewsTheBundledRideInARealBrowser() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("chromium and chromium-driver are missing, and CI=true (scripts/ensure-deps.sh installs them)")
            }
            print("skipped: no chromium / chromedriver (apt-get install chromium chromium-driver)")
            return
        }
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Self.storeOfTheBundledRide(dir)
        let id = try #require(try await store.listDrafts().first?.id, "the bundled ride leaves a draft")
        let before = try await store.draft(id)
        let shown = before.obstacles.filter { !$0.heldBack }
        try #require(shown.count >= 2, "the bundled ride has candidates to review")
        let newKind: ObstacleKind = shown[1].kind == .debris ? .pothole : .debris
        // Where the add-mode tap lands: a vertex of the path halfway along it, in map units.
        let spot = DraftMap(before, shown: shown).projection.point(before.path[before.path.count / 2])

        try await withReviewServer(store) { port in
            let site = "http://127.0.0.1:\(port)"

            try await withPhoneBrowser(dir) { browser in
                try await browser.open(site + "/")
                #expect(try await browser.currentURL() == site + "/pair")
                let inner = (try await browser.execute("return window.innerWidth;") as? NSNumber)?.intValue
                #expect(inner == 390, "viewport \(inner ?? 0) px wide")
                try await checkFitsAndTargets(browser, "pair")
                try await browser.type("#code", try store.issuePairingCode().code)
                try await browser.clickToLoad("#pair")
                #expect(try await browser.text("h1") == "Drafts to review")
                try await checkFitsAndTargets(browser, "list")
                try await browser.screenshot(to: Paths.screenshot("review-list.png"))

                try await browser.clickToLoad("#draft-1")
                #expect(try await browser.text("#state") == "to review")
                try await checkFitsAndTargets(browser, "draft")
                try await browser.screenshot(to: Paths.screenshot("review-draft.png"))

                // A tap on a candidate's dot opens that candidate and adds nothing.
                try await browser.click("#dot-1")
                #expect(try await browser.currentURL().hasSuffix("#cand-1"))
                let afterTap = try await store.draft(id)
                #expect(afterTap.edits.isEmpty && afterTap.obstacles.count == before.obstacles.count)

                // Reject asks first; the rejection can be taken back.
                try await browser.clickToLoad("#reject")
                #expect(try await browser.text("h1") == "Reject this ride?")
                try await checkFitsAndTargets(browser, "reject question")
                #expect(try await store.draft(id).state == .pending)
                try await browser.clickToLoad("#reject-confirm")
                #expect(try await browser.text("#message").hasPrefix("Rejected"))
                #expect(try await browser.text("#state") == "rejected")
                try await browser.clickToLoad("#reopen")
                #expect(try await browser.text("#message") == "Reject undone: the ride is waiting for your review again.")
                #expect(try await browser.text("#state") == "to review")
                let stale = try await browser.windowHandle()

                // The edits happen in a second tab; the first keeps the page as it was (a stale confirm button).
                let tab = try await browser.newTab()
                try await browser.switchTo(tab)
                try await browser.emulatePhone(width: 390, height: 844)  // the override is per tab
                try await browser.open(site + "/drafts/\(id)")
                try await browser.clickToLoad("#drop-1")
                #expect(try await browser.text("#message") == "Candidate dropped.")
                try await browser.click("#kind-2 option[value='\(newKind.rawValue)']")
                try await browser.clickToLoad("#setkind-2")
                #expect(try await browser.text("#message") == "Kind changed.")

                // Add mode: kind, a tap on the line, the ringed spot, then add.
                try await browser.clickToLoad("#add")
                #expect(try await browser.text("h1") == "Add a missed obstacle")
                try await browser.click("#add-kind option[value='pothole']")
                try await browser.loading { try await browser.tap("#map", x: spot.x, y: spot.y) }
                #expect(try await browser.text("#add-confirm") == "Add a pothole here")
                try await checkFitsAndTargets(browser, "add mode")
                #expect(try await store.draft(id).obstacles.filter { $0.origin == "rider" }.isEmpty)  // picking added nothing
                try await browser.clickToLoad("#add-confirm")
                #expect(try await browser.text("#message") == "Obstacle added.")

                try await browser.clickToLoad("#confirm")
                #expect(
                    try await browser.text("#message")
                        == "Confirmed: the draft is frozen and stays on this device: no hub is configured (sync.hub_url).")
                #expect(try await browser.text("#state") == "confirmed")

                // 360 px, the narrowest phone the page is made for: nothing scrolls sideways.
                try await browser.emulatePhone(width: 360, height: 740)
                for path in ["/", "/drafts/\(id)", "/trips"] {
                    try await browser.open(site + path)
                    try await checkFitsAndTargets(browser, "\(path) at 360 px")
                }

                try await browser.switchTo(stale)
                try await browser.clickToLoad("#confirm")
                #expect(try await browser.text("#message") == "draft \(id) is confirmed already; nothing to change")
            }
        }

        let d = try await store.draft(id)
        #expect(d.state == .queued)
        #expect(d.edits.map(\.action) == ["drop", "set-kind", "add"])
        #expect(d.obstacles.filter(\.dropped).map(\.id) == [shown[0].id])
        #expect(d.obstacles.first { $0.id == shown[1].id }?.kind == newKind)
        #expect(d.obstacles.filter { $0.origin == "rider" }.map(\.kind) == [.pothole])
    }

    /// Street tiles from a tile server (`review.tiles_url`) under the Content-Security-Policy:
    /// the tiles are SVG `<image>`s, the server's origin is in `img-src`, and the
    /// page's `Referrer-Policy: no-referrer` keeps its address from the tile server. A tile
    /// server on loopback answers every tile with a 1 px PNG and keeps what it was sent.
    @Test func streetTilesLoadUnderThePolicyWithNoReferer() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium")
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" { Issue.record("chromium and chromium-driver are missing, and CI=true") }
            return
        }
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try Self.storeOfTheBundledRide(dir)
        let id = try #require(try await store.listDrafts().first?.id)
        let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")!
        let asked = TileRequests()
        let tileRouter = Router()
        tileRouter.get("/:z/:x/:y") { request, _ in
            asked.add(referer: request.headers[.referer])
            return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        let (tilePorts, tileSink) = AsyncStream.makeStream(of: Int.self)
        let tiles = Application(
            router: tileRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { tileSink.yield($0.localAddress?.port ?? 0) }, logger: Logger(label: "tile-server"))
        var tileIterator = tilePorts.makeAsyncIterator()
        let tileGroup = ServiceGroup(services: [tiles], gracefulShutdownSignals: [], logger: Logger(label: "tile-server"))
        let tileTask = Task { try await tileGroup.run() }
        defer { tileTask.cancel() }
        let tilePort = try #require(await tileIterator.next())
        let tileOrigin = "http://127.0.0.1:\(tilePort)"
        let street = StreetMap.tiles(template: tileOrigin + "/{z}/{x}/{y}.png", attribution: "test tiles", maxZoom: 19)
        try await withReviewServer(store, streetMap: street) { port in
            let site = "http://127.0.0.1:\(port)"

            try await withPhoneBrowser(dir) { browser in
                try await browser.open(site + "/pair")
                try await browser.type("#code", try store.issuePairingCode().code)
                try await browser.clickToLoad("#pair")
                for path in ["/drafts/\(id)", "/drafts/\(id)/add"] {
                    try await browser.open(site + path)
                    try await checkFitsAndTargets(browser, "\(path) with street tiles")
                    // Resource timing lists what the page fetched; an image the policy blocked is not fetched.
                    let counts =
                        try await browser.execute(
                            """
                            return [document.querySelectorAll('image.tile').length, performance.getEntriesByType('resource')\
                            .filter(e => e.name.startsWith('\(tileOrigin)/')).length];
                            """) as? [Any]
                    let numbers = (counts ?? []).compactMap { ($0 as? NSNumber)?.intValue }
                    #expect(numbers.count == 2 && numbers[0] > 0 && numbers[0] == numbers[1], "\(path): tiles shown, fetched \(numbers)")
                }
            }
        }
        await tileGroup.triggerGracefulShutdown()
        _ = try? await tileTask.value
        #expect(asked.count > 0 && asked.referers.isEmpty, "the tile server was told \(asked.referers)")
    }
}

/// What the test's tile server was asked: how many tiles, and every Referer it was sent.
final class TileRequests: Sendable {
    private let asked = Mutex<(tiles: Int, referers: [String])>((0, []))
    func add(referer: String?) {
        asked.withLock {
            $0.tiles += 1; if let referer { $0.referers.append(referer) }
        }
    }
    var count: Int { asked.withLock { $0.tiles } }
    var referers: [String] { asked.withLock { $0.referers } }
}
