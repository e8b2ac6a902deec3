import BikePathAPI
import BikePathCore
import BikePathFixtures
import BikePathHub
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The hub's map page (`/map`) in a real headless chromium (Debian's, through
/// chromedriver) at a 390 px phone's width, on a real hub in this process that holds
/// a simulated city's confirmations, uploaded over HTTP from 16 devices: the network
/// overlay draws lines, the obstacles draw markers with their popup, the heatmap draws
/// cells; a tap on the map sets the start; typed coordinates search routes, which show
/// on the map and in the list, the best emphasised; a place far from every path is
/// answered in words. Everything fits 390 and 360 px and every control is at least
/// 44 px tall. Takes map-page.png and map-routes.png (`Paths.screenshot`: docs/ when asked).
@Suite(.timeLimitOnceRunning(.minutes(6)), .ownThreads) struct MapPageBrowserTests {
    /// The simulated city (`CitySimulation`: a 4 km grid of streets) in a fresh hub, over HTTP.
    static func upload(_ city: [(device: String, body: Data)], to client: any TestClientProtocol) async throws {
        for (device, body) in city {
            let draft = try JSONDecoder().decode(ConfirmationUpload.self, from: body).draft.id
            let r = try await client.execute(
                uri: "/v1/drafts/\(draft)/confirmation", method: .put,
                headers: [.authorization: "Bearer \(token(device))", .contentType: "application/json"],
                body: ByteBuffer(bytes: body))
            #expect(r.status == .created, "\(device) \(draft): \(r.status) \(String(buffer: r.body))")
        }
    }

    static func token(_ device: String) -> String { "token-of-\(device)-0123456789" }

    /// A JSON boolean from the browser (Bool or NSNumber, depending on the Foundation).
    static func bool(_ value: Any?) -> Bool? { (value as? Bool) ?? (value as? NSNumber)?.boolValue }

    /// Polls `script` (a function body returning a number) until it is at least `least`; returns the last value.
    static func poll(_ browser: WebDriver, _ script: String, atLeast least: Double = 1, seconds: Double = 15) async throws -> Double {
        let deadline = Date().addingTimeInterval(seconds)
        var value = 0.0
        while true {
            value = (try await browser.execute(script) as? NSNumber)?.doubleValue ?? 0
            if value >= least || Date() > deadline { return value }
            try await Task.sleep(for: .milliseconds(150))
        }
    }

    static func count(_ browser: WebDriver, _ css: String, atLeast least: Int = 1) async throws -> Int {
        Int(try await poll(browser, "return document.querySelectorAll(\"\(css)\").length;", atLeast: Double(least)))
    }

    /// Fails when the page is wider than the viewport or a control is shorter than 44 px.
    static func checkFitsAndTargets(_ browser: WebDriver, _ what: String) async throws {
        func numbers(_ value: Any) -> [Double] { (value as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue } }
        let width = numbers(try await browser.execute("return [document.documentElement.scrollWidth, window.innerWidth];"))
        #expect(width.count == 2 && width[0] <= width[1], "\(what): page \(width) wider than the screen")
        let controls =
            try await browser.execute(
                """
                return Array.from(document.querySelectorAll('button, input[type=text], label.toggle, .leaflet-bar a'))
                  .filter(e => e.offsetParent !== null).map(e => [e.id || e.className || e.tagName, e.getBoundingClientRect().height]);
                """) as? [[Any]] ?? []
        let short = controls.filter { (($0.last as? NSNumber)?.doubleValue ?? 0) < 44 }
        #expect(controls.count >= 8 && short.isEmpty, "\(what): controls under 44 px: \(short)")
    }

    /// `css`'s text once it shows. Leaflet fades a popup in over 0.2 s, and WebDriver's text of an element
    /// still at opacity 0 is "": on a loaded machine (CI run 33) the read came before the fade.
    static func shownText(_ browser: WebDriver, _ css: String, seconds: Double = 5) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            let text = try await browser.text(css)
            if !text.isEmpty || Date() > deadline { return text }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Makes `css`'s first element well inside the map (away from the controls) findable as `#picked`, or false.
    static func pickInsideMap(_ browser: WebDriver, _ css: String) async throws -> Bool {
        bool(
            try await browser.execute(
                """
                const map = document.getElementById('map').getBoundingClientRect();
                const inside = Array.from(document.querySelectorAll("\(css)")).find(e => {
                  const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
                  return x > map.left + 70 && x < map.right - 70 && y > map.top + 110 && y < map.bottom - 50;
                });
                if (!inside) return false;
                document.getElementById('picked')?.removeAttribute('id');
                inside.id = 'picked';
                return true;
                """)) ?? false
    }

    @Test func riderFindsBikePathsOnThePhone() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isReadableFile(atPath: MapPageSettings.debianLeaflet + "/leaflet.js")
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("chromium, chromium-driver or libjs-leaflet is missing, and CI=true (scripts/ensure-deps.sh installs them)")
            }
            print("skipped: no chromium / chromedriver / libjs-leaflet (apt-get install chromium chromium-driver libjs-leaflet)")
            return
        }
        let city = CitySimulation.generate(riders: 16, rides: 6, seed: 20).confirmations
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            for device in Set(city.map(\.device)) { try await store.issueToken(device: device, token: Self.token(device)) }
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { live in
                let client = KeyCaseCheckedClient(base: live)
                try await Self.upload(city, to: client)
                try await MapTiles.update(store)
                let port = try #require(client.port)
                // The search's ends: the two nodes furthest apart (south-west, north-east) of the largest
                // connected part of the community network (lines meet at shared end points).
                let network = try await client.execute(uri: "/v1/map/network?bbox=13.28,52.49,13.37,52.54", method: .get)
                let features =
                    (try JSONSerialization.jsonObject(with: Data(network.body.readableBytesView)) as? [String: Any])?["features"]
                    as? [[String: Any]] ?? []
                let lines = features.compactMap { ($0["geometry"] as? [String: Any])?["coordinates"] as? [[Double]] }.filter {
                    $0.count >= 2
                }
                func key(_ p: [Double]) -> String { String(format: "%.5f,%.5f", p[1], p[0]) }
                var parent: [String: String] = [:]
                func root(_ k: String) -> String { var k = k; while let p = parent[k], p != k { k = p }; return k }
                for l in lines {
                    let (a, b) = (key(l.first!), key(l.last!))
                    parent[a] = parent[a] ?? a; parent[b] = parent[b] ?? b
                    parent[root(a)] = root(b)
                }
                let parts = Dictionary(grouping: parent.keys, by: root).values.max { $0.count < $1.count } ?? []
                let nodes = parts.map { $0.split(separator: ",").compactMap { Double($0) } }.map {
                    Coordinate(latitude: $0[0], longitude: $0[1])
                }
                let ends = try #require(
                    nodes.min { $0.latitude + $0.longitude < $1.latitude + $1.longitude }
                        .flatMap { a in nodes.max { $0.latitude + $0.longitude < $1.latitude + $1.longitude }.map { (a, $0) } },
                    "the network has lines: \(network.status), \(lines.count) lines")
                try await Self.drive(site: "http://127.0.0.1:\(port)", dir: dir, ends: ends)
            }
        }
    }

    static func drive(site: String, dir: TempDir, ends: (Coordinate, Coordinate)) async throws {
        let centre = CitySimulation.at(2_000, 2_000)
        let (origin, destination) = ends
        func text(_ c: Coordinate) -> String { String(format: "%.5f,%.5f", c.latitude, c.longitude) }

        let browser = try WebDriver(log: URL(fileURLWithPath: dir.file("chromedriver.log")))
        do {
            try await browser.start()
            try await browser.emulatePhone(width: 390, height: 844)
            try await browser.open(site + String(format: "/map#13/%.5f/%.5f", centre.latitude, centre.longitude))
            #expect((try await browser.execute("return window.innerWidth;") as? NSNumber)?.intValue == 390)
            #expect(
                bool(try await browser.execute("return typeof L === 'object' && !!window.bikepathMap;")) == true,
                "Leaflet and the page's script ran")

            // The overlays of the box in view.
            let obstacles = try await count(browser, "#map path.obstacle")
            #expect(obstacles >= 5, "obstacle markers: \(obstacles)")
            let lines = try await count(browser, "#map path.net-line")
            let notice = try await browser.text("#notice")
            #expect(lines >= 10, "network lines: \(lines); notice: \(notice)")
            if try await pickInsideMap(browser, "#map path.obstacle") {
                try await browser.click("#picked")
                let popup = try await shownText(browser, ".leaflet-popup-content")
                #expect(
                    popup.contains("Kind:") && popup.contains("Riders:") && popup.contains("Confidence:") && popup.contains("Last seen:"),
                    "\(popup)")
                try await browser.click(".leaflet-popup-close-button")
            } else {
                Issue.record("no obstacle marker inside the map to tap")
            }
            try await browser.click("#show-heatmap")
            #expect(try await count(browser, "#map path.heat-cell") >= 3, "heatmap cells")
            try await browser.click("#show-heatmap")
            #expect(
                try await poll(browser, "return document.querySelectorAll('#map path.heat-cell').length == 0 ? 1 : 0;") == 1,
                "the heatmap hides")
            try await checkFitsAndTargets(browser, "map at 390 px")

            // A tap on the map sets the start (a finger, as on the phone), on a spot with no marker or control.
            let spot =
                try await browser.execute(
                    """
                    const map = document.getElementById('map'), r = map.getBoundingClientRect();
                    for (let y = 130; y < r.height - 60; y += 17) for (let x = 80; x < r.width - 60; x += 23) {
                      const e = document.elementFromPoint(r.left + x, r.top + y);
                      if (e && map.contains(e) && !e.closest('.leaflet-interactive, .leaflet-control')) return [x, y];
                    }
                    return null;
                    """) as? [Any] ?? []
            let xy = spot.compactMap { ($0 as? NSNumber)?.doubleValue }
            try #require(xy.count == 2, "a free spot on the map")
            try await browser.tap("#map", x: xy[0], y: xy[1])
            let tapped = try await browser.execute("return document.getElementById('from').value;") as? String ?? ""
            #expect(tapped.split(separator: ",").count == 2, "the tap set the start: '\(tapped)'")
            #expect(try await browser.text("#hint") == "Now tap the destination.")
            try await browser.click("#clear")

            // Typed places: the ranked routes on the map and in the list, the best first and emphasised.
            try await browser.type("#from", text(origin))
            try await browser.type("#to", text(destination))
            try await browser.click("#find")
            let answered = try await poll(
                browser,
                """
                return document.querySelectorAll('#routes > li').length + (document.getElementById('route-error').hidden ? 0 : 1);
                """, seconds: 30)
            #expect(answered >= 1, "the search answered")
            let error =
                try await browser.execute("const e = document.getElementById('route-error'); return e.hidden ? '' : e.textContent;")
                as? String ?? ""
            let routes = try await count(browser, "#routes > li")
            #expect(routes >= 1 && error.isEmpty, "routes listed: \(routes); error shown: '\(error)'")
            if routes >= 1 {
                let first = try await browser.text("#route-1")
                #expect(
                    first.hasPrefix("best") && first.contains(" km") && first.contains("score") && first.contains("obstacle"), "\(first)")
                #expect(bool(try await browser.execute("return document.getElementById('route-1').classList.contains('best');")) == true)
                // Under each route its legs: the paths, and the access legs at either end from
                // 5 m (the ends are the network's nodes, typed to 1e-5°: about 1 m off, so none).
                let legs =
                    try await browser.execute(
                        "return Array.from(document.querySelectorAll('#routes > li:first-child .legs li')).map(l => l.textContent);")
                    as? [String] ?? []
                #expect(legs.count >= 1, "legs listed: \(legs)")
                let path = /community path [0-9.]+ k?m, (optimal|medium|sufficient|needs maintenance|unknown), [0-9]+ riders?/
                #expect(legs.allSatisfy { $0.wholeMatch(of: path) != nil }, "\(legs)")
                #expect(!legs.contains { $0.hasPrefix("straight to the path") || $0.contains(" 0 m") }, "\(legs)")
                #expect(try await count(browser, "#map path.route-best") == 1, "the best route drawn, emphasised")
                #expect(try await count(browser, "#map path.route-line") == routes, "each listed route drawn")
                let weights =
                    try await browser.execute(
                        """
                        return Array.from(document.querySelectorAll('#map path.route-line')).map(p => [p.classList.contains('route-best'), +p.getAttribute('stroke-width')]);
                        """) as? [[Any]] ?? []
                let best = weights.filter { bool($0.first) == true }.compactMap { ($0.last as? NSNumber)?.doubleValue }
                let others = weights.filter { bool($0.first) == false }.compactMap { ($0.last as? NSNumber)?.doubleValue }
                #expect(best.count == 1 && others.allSatisfy { $0 < best[0] }, "the best is the thickest: \(weights)")
                let last = "#route-\(routes)"
                try await browser.click(last)
                #expect(
                    (try await browser.execute("return document.querySelector('\(last)').getAttribute('aria-pressed');") as? String)
                        == "true")
                #expect(
                    (try await browser.execute("return document.querySelector('#route-1').getAttribute('aria-pressed');") as? String)
                        == (routes == 1 ? "true" : "false"))
                try await browser.click("#route-1")
            }
            try await checkFitsAndTargets(browser, "routes at 390 px")
            _ = try await browser.execute("window.scrollTo(0, 0);")
            try await Task.sleep(for: .milliseconds(500))  // the map's fit to the routes, and the overlays it fetches
            try await browser.screenshot(to: Paths.screenshot("map-page.png"))
            _ = try await browser.execute("document.getElementById('find').scrollIntoView({block: 'start'});")
            try await browser.screenshot(to: Paths.screenshot("map-routes.png"))

            // A place far from every community path: the answer in words, with the distance.
            try await browser.click("#clear")
            try await browser.type("#from", text(CitySimulation.at(-30_000, 0)))
            try await browser.type("#to", text(destination))
            try await browser.click("#find")
            _ = try await poll(browser, "return document.getElementById('route-error').hidden ? 0 : 1;", seconds: 30)
            let far = try await browser.text("#route-error")
            #expect(far.contains("nearest") && far.contains("away"), "\(far)")

            // Zoomed out past what the API answers: the page says so instead of asking.
            try await browser.open("about:blank")
            try await browser.open(site + "/map#6/52.5/13.3")
            #expect(
                try await poll(browser, "return document.getElementById('notice').textContent.includes('Zoomed out too far') ? 1 : 0;") == 1
            )

            // 360 px, the narrowest phone the page is made for.
            try await browser.emulatePhone(width: 360, height: 740)
            try await browser.open("about:blank")
            try await browser.open(site + String(format: "/map#13/%.5f/%.5f", centre.latitude, centre.longitude))
            _ = try await count(browser, "#map path.obstacle")
            try await checkFitsAndTargets(browser, "map at 360 px")
        } catch {
            await browser.quit()
            throw error
        }
        await browser.quit()
    }
}
