import BikePathCore
import BikePathHub
import BikePathTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// The map page with no basemap over central London's real streets (`RealExtract`, the hub's
/// own import): zoomed in, it draws them as grey lines under the overlays, writes their
/// names, and credits OpenStreetMap; zoomed out past what `/v1/streets` answers it draws none.
/// With a basemap whose tiles fail, the page says so and draws the streets just the same.
/// Takes map-streets.png (390 px, no basemap, zoom 17 by St Paul's; `Paths.screenshot`).
extension MapPageBrowserTests {
    @Test func thePageWithoutBasemapDrawsTheStreetsWithTheirNames() async throws {
        guard Self.realDataBrowserAvailable else { return }
        let edges = try OSMImport.read(path: RealExtract.central).edges
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replaceStreets(edges)
            try await Self.onPhone(store, dir: dir) { browser, site in
                try await Self.streetsWithNames(browser, site: site, edges: edges, screenshot: Paths.screenshot("map-streets.png"))
            }
            // A basemap whose tiles never come (nothing listens on a port just found free):
            // the page says so, and the streets stand in for it just as on a page without one.
            let unreachable = "http://127.0.0.1:\(try WebDriver.freePort())/{z}/{x}/{y}.png"
            try await Self.onPhone(store, settings: MapPageSettings(basemapURL: unreachable), dir: dir) { browser, site in
                try await Self.streetsWithNames(browser, site: site, edges: edges)
                let notice = try await browser.text("#notice")
                #expect(notice.contains("basemap failed to load") && notice.contains("streets are drawn in its place"), "\(notice)")
            }
        }
    }

    /// Checks the streets and their names at zoom 17 (and shoots the extract's middle to
    /// `screenshot` if given), then none at zoom 12.
    static func streetsWithNames(_ browser: WebDriver, site: String, edges: [StreetEdge], screenshot: String? = nil) async throws {
        // Zoom 17 on Goswell Road's middle (docs/api.yaml's example place).
        try await browser.open(site + "/map#17/51.5262/-0.1003")
        // One fetch draws them all: the first line means every line is there.
        let drawn = try await count(browser, ".leaflet-streets-pane path.street-line")
        let view =
            (try await browser.execute(
                "const b = window.bikepathMap.map.getBounds(); return [b.getWest(), b.getSouth(), b.getEast(), b.getNorth()];") as? [Any]
            ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
        try #require(view.count == 4)
        let inView = edges.filter { $0.meets(BoundingBox(west: view[0], south: view[1], east: view[2], north: view[3])) }
        #expect(drawn == inView.count, "a line for each of the \(inView.count) streets in view, drew \(drawn)")
        // Under the overlays: the streets' pane below Leaflet's overlay pane, where the paths are.
        let depths =
            (try await browser.execute(
                "return ['.leaflet-streets-pane', '.leaflet-overlay-pane'].map(p => +getComputedStyle(document.querySelector(p)).zIndex);")
            as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
        #expect(depths.count == 2 && depths[0] < depths[1], "pane z-indexes \(depths)")

        // Each name once, and only names of streets in view; Goswell Road's among them.
        _ = try await count(browser, ".leaflet-tooltip.street-name")
        let labels =
            try await browser.execute(
                "return Array.from(document.querySelectorAll('.leaflet-tooltip.street-name')).map(e => e.textContent);") as? [String] ?? []
        let names = Set(inView.compactMap(\.name))
        #expect(labels.contains("Goswell Road"), "\(labels)")
        #expect(Set(labels).count == labels.count && Set(labels) == names, "labels \(labels.sorted()), names \(names.sorted())")
        let credit = try await browser.text(".leaflet-control-attribution")
        #expect(credit.contains("© OpenStreetMap contributors"), "\(credit)")
        try await checkFitsAndTargets(browser, "streets at 390 px")
        if let screenshot {
            // The extract's middle (Ludgate Hill, St Paul's), where streets fill the view;
            // Goswell Road lies at its northern edge.
            try await browser.open(site + "/map#17/51.5142/-0.1010")
            _ = try await count(browser, ".leaflet-tooltip.street-name", atLeast: 5)
            try await browser.screenshot(to: screenshot)
        }

        // Zoom 12 spans far more than 30 km²: the page asks for no streets and draws none.
        try await browser.open(site + "/map#12/51.5262/-0.1003")
        let left = try await poll(browser, "return document.querySelectorAll('path.street-line').length === 0 ? 1 : 0;")
        #expect(left == 1, "no street lines at zoom 12")
    }
}
