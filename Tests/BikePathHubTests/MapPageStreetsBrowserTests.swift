import BikePathCore
import BikePathHub
import BikePathTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// The map page with no basemap over central London's real streets (`RealExtract`, the hub's
/// own import): zoomed in, it draws them as grey lines under the overlays, writes their
/// names, and credits OpenStreetMap; zoomed out past what `/v1/streets` answers it draws none.
extension MapPageBrowserTests {
    @Test func thePageWithoutBasemapDrawsTheStreetsWithTheirNames() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isReadableFile(atPath: MapPageSettings.debianLeaflet + "/leaflet.js"), RealExtract.available
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("chromium, chromium-driver, libjs-leaflet, osmium-tool or the shared OSM datasets are missing, and CI=true")
            }
            return
        }
        let edges = try OSMImport.read(path: RealExtract.central).edges
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replaceStreets(edges)
            let app = try Hub.buildApplication(configuration: HubConfiguration(port: 0), store: store, logger: Fixtures.logger)
            try await app.test(.live) { live in
                let site = "http://127.0.0.1:\(try #require(live.port))"
                let browser = try WebDriver(log: URL(fileURLWithPath: dir.file("chromedriver.log")))
                do {
                    try await browser.start()
                    try await browser.emulatePhone(width: 390, height: 844)
                    try await Self.streetsWithNames(browser, site: site, edges: edges)
                } catch {
                    await browser.quit()
                    throw error
                }
                await browser.quit()
            }
        }
    }

    static func streetsWithNames(_ browser: WebDriver, site: String, edges: [StreetEdge]) async throws {
        // Zoom 17 on Goswell Road's middle (docs/api.yaml's example place).
        try await browser.open(site + "/map#17/51.5262/-0.1003")
        let drawn = try await count(browser, ".leaflet-streets-pane path.street-line", atLeast: 10)
        let view =
            (try await browser.execute(
                "const b = window.bikepathMap.map.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];") as? [Any]
            ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
        try #require(view.count == 4)
        let inView = edges.filter { $0.meets(BoundingBox(west: view[0], south: view[1], east: view[2], north: view[3])) }
        #expect(drawn == inView.count, "a line for each of the \(inView.count) streets in view, drew \(drawn)")

        // Each name once, and only names of streets in view; Goswell Road's among them.
        _ = try await count(browser, ".leaflet-tooltip.street-name")
        let labels = try await browser.execute(
            "return Array.from(document.querySelectorAll('.leaflet-tooltip.street-name')).map(e => e.textContent);") as? [String] ?? []
        let names = Set(inView.compactMap(\.name))
        #expect(labels.contains("Goswell Road"), "\(labels)")
        #expect(Set(labels).count == labels.count && Set(labels) == names, "labels \(labels.sorted()), names \(names.sorted())")
        let credit = try await browser.text(".leaflet-control-attribution")
        #expect(credit.contains("© OpenStreetMap contributors"), "\(credit)")
        try await checkFitsAndTargets(browser, "streets at 390 px")

        // Zoom 12 spans far more than 30 km²: the page asks for no streets and draws none.
        try await browser.open(site + "/map#12/51.5262/-0.1003")
        let left = try await poll(browser, "return document.querySelectorAll('path.street-line').length === 0 ? 1 : 0;")
        #expect(left == 1, "no street lines at zoom 12")
    }
}
