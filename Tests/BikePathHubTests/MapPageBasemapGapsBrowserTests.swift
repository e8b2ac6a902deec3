import BikePathHub
import BikePathTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// A basemap whose tiles partly load: a tile server in this process answers half the tiles
/// (a checkerboard) with an image at once and the other half 404 after 3 s, so tiles come
/// before the first failure. The page says the map may have gaps and starts no stand-in: the
/// hub's streets are drawn in a basemap's place only while none of its tiles came.
extension MapPageBrowserTests {
    @Test func aBasemapWithSomeTilesMissingSaysTheMapMayHaveGaps() async throws {
        guard Self.realDataBrowserAvailable else { return }
        let edges = try OSMImport.read(path: RealExtract.central).edges
        let dir = try TempDir()
        defer { dir.cleanup() }
        // A 1 × 1 px PNG: Leaflet takes any image as a tile.
        let png = try #require(
            Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="))
        let router = Router()
        router.get("/:z/:x/:y") { _, context -> Response in
            let x = Int(context.parameters.get("x") ?? "") ?? 0
            let y = Int((context.parameters.get("y") ?? "").prefix { $0.isNumber }) ?? 0
            if (x + y) % 2 == 0 {
                return Response(status: .ok, headers: [.contentType: "image/png"], body: .init(byteBuffer: ByteBuffer(bytes: png)))
            }
            try await Task.sleep(for: .seconds(3))
            return Response(status: .notFound)
        }
        let tiles = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Fixtures.logger)
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            try await store.replaceStreets(edges)
            try await tiles.test(.live) { client in
                let basemap = "http://127.0.0.1:\(try #require(client.port))/{z}/{x}/{y}.png"
                try await Self.onPhone(store, settings: MapPageSettings(basemapURL: basemap), dir: dir) { browser, site in
                    try await browser.open(site + "/map#17/51.5262/-0.1003")
                    let gaps = try await Self.poll(
                        browser, "return document.getElementById('notice').textContent.includes('the map may have gaps') ? 1 : 0;")
                    let notice = try await browser.text("#notice")
                    #expect(gaps == 1, "notice: \(notice)")
                    let loaded = try await browser.execute("return document.querySelectorAll('.leaflet-tile-loaded').length;")
                    #expect(((loaded as? NSNumber)?.intValue ?? 0) > 0, "tiles loaded: \(loaded)")
                    let lines = try await browser.execute("return document.querySelectorAll('path.street-line').length;")
                    #expect((lines as? NSNumber)?.intValue == 0, "no stand-in streets under a basemap that loads: \(lines)")
                }
            }
        }
    }
}
