import BikePathHub
import BikePathTestSupport
import Foundation
import HummingbirdTesting
import Testing

/// What the map page's tests on central London's real data share: whether they can run here,
/// and a 390 px phone's chromium on a live hub of a store.
extension MapPageBrowserTests {
    /// chromium, its driver, Debian's Leaflet and the real extract; on CI their absence is an issue.
    static var realDataBrowserAvailable: Bool {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromedriver"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"),
            FileManager.default.isReadableFile(atPath: MapPageSettings.debianLeaflet + "/leaflet.js"), RealExtract.available
        else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("chromium, chromium-driver, libjs-leaflet, osmium-tool or the shared OSM datasets are missing, and CI=true")
            }
            return false
        }
        return true
    }

    /// `drive` with a phone-sized browser and the address of a live hub on `store` with `settings`.
    static func onPhone(
        _ store: any HubStore, settings: MapPageSettings = MapPageSettings(), dir: TempDir,
        _ drive: @escaping @Sendable (WebDriver, String) async throws -> Void
    ) async throws {
        let app = try Hub.buildApplication(
            configuration: HubConfiguration(port: 0, mapPage: settings), store: store, logger: Fixtures.logger)
        try await app.test(.live) { live in
            let site = "http://127.0.0.1:\(try #require(live.port))"
            let browser = try WebDriver(log: URL(fileURLWithPath: dir.file("chromedriver.log")))
            do {
                try await browser.start()
                try await browser.emulatePhone(width: 390, height: 844)
                try await drive(browser, site)
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()
        }
    }
}
