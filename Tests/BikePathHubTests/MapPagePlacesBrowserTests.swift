import BikePathCore
import BikePathHub
import BikePathTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// The map page with central London's real places stored (`LondonPlaces`) and no basemap:
/// it opens on the places, not on a blank world; a name typed with a typo lists the place,
/// and choosing it sets the start where the place is; "LAT,LON" still works beside it. With a
/// basemap whose tiles cannot load, the page says so.
extension MapPageBrowserTests {
    @Test func riderFindsPlacesByNameOnAMapWithoutBasemap() async throws {
        guard Self.realDataBrowserAvailable else { return }
        let places = try LondonPlaces.load()
        let dir = try TempDir()
        defer { dir.cleanup() }
        // Nothing listens on a port just found free: every tile of this basemap fails.
        let unreachable = "http://127.0.0.1:\(try WebDriver.freePort())/{z}/{x}/{y}.png"
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replacePlaces(places)
            for settings in [MapPageSettings(), MapPageSettings(basemapURL: unreachable)] {
                try await Self.onPhone(store, settings: settings, dir: dir) { browser, site in
                    if settings.basemapURL == nil {
                        try await Self.placesByName(browser, site: site, places: places)
                    } else {
                        try await browser.open(site + "/map#15/51.52/-0.098")
                        let said = try await Self.poll(
                            browser, "return document.getElementById('notice').textContent.includes('basemap failed to load') ? 1 : 0;")
                        let notice = try await browser.text("#notice")
                        #expect(said == 1, "notice: \(notice)")
                    }
                }
            }
        }
    }

    static func placesByName(_ browser: WebDriver, site: String, places: [Place]) async throws {
        // No address, no configured view, no basemap: the page opens on the places (central
        // London's reach 19 km east to west: a street's middle node lies out west), not the world.
        try await browser.open(site + "/map")
        #expect(try await poll(browser, "return window.bikepathMap.map.getZoom();", atLeast: 10) >= 10, "zoomed to the data")
        let view =
            (try await browser.execute(
                "const b = window.bikepathMap.map.getBounds(); return [b.getSouth(), b.getWest(), b.getNorth(), b.getEast()];") as? [Any]
            ?? [])
            .compactMap { ($0 as? NSNumber)?.doubleValue }
        let lats = places.map(\.position.latitude), lons = places.map(\.position.longitude)
        #expect(
            view.count == 4 && view[0] <= lats.min()! && view[1] <= lons.min()! && view[2] >= lats.max()! && view[3] >= lons.max()!
                && (view[2] - view[0] < 2.5 * (lats.max()! - lats.min()!) || view[3] - view[1] < 2.5 * (lons.max()! - lons.min()!)),
            "the view \(view) shows every place, and little else")

        // A name with a typo: the place listed under the field; choosing it sets the start there.
        try await browser.type("#from", "Goswel Road")
        #expect(try await count(browser, "#from-suggestions button") >= 1, "suggestions for From")
        let first = try await browser.text("#from-suggestions li:first-child button")
        #expect(first.hasPrefix("Goswell Road"), "\(first)")
        try await checkFitsAndTargets(browser, "suggestions at 390 px")
        try await browser.click("#from-suggestions li:first-child button")
        #expect(try await browser.execute("return document.getElementById('from').value;") as? String == "Goswell Road")
        #expect(bool(try await browser.execute("return document.getElementById('from-suggestions').hidden;")) == true)
        let picked =
            (try await browser.execute(
                """
                let at = null;
                window.bikepathMap.map.eachLayer(l => { if ((l.options.className || '').includes('pick-from')) at = l.getLatLng(); });
                return at ? [at.lat, at.lng] : null;
                """) as? [Any] ?? []).compactMap { ($0 as? NSNumber)?.doubleValue }
        let goswell = places.filter { $0.name == "Goswell Road" }.map(\.position)
        #expect(
            picked.count == 2
                && goswell.contains { Geodesic.distance($0, Coordinate(latitude: picked[0], longitude: picked[1])) < 1 },
            "the start \(picked) is one of Goswell Road's \(goswell.count) places")

        // LAT,LON beside it: the search runs with both ends (this hub has no paths, so it says so).
        try await browser.type("#to", "51.52019,-0.09869")
        #expect(bool(try await browser.execute("return document.getElementById('to-suggestions').hidden;")) == true)
        try await browser.click("#find")
        _ = try await poll(browser, "return document.getElementById('route-error').hidden ? 0 : 1;", seconds: 30)
        let answer = try await browser.text("#route-error")
        #expect(answer.contains("community path") && !answer.contains("choose a place"), "\(answer)")
    }
}
