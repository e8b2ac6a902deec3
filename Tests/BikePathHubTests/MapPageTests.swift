import BikePathHub
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

/// The map page's routes without a browser (docs/hub.md, "Map page"): the page and its
/// files, Leaflet from its directory and nothing else of the machine, and a clear 503
/// (logged) when Leaflet is not installed.
@Suite(.ownThreads) struct MapPageTests {
    static func withHub(
        _ settings: MapPageSettings, log: CapturedLog? = nil,
        _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await HubStorage.sqlite(path: dir.file("hub.sqlite")).withStore(logger: Fixtures.logger) { store in
            try await store.migrate()
            let app = try Hub.buildApplication(
                configuration: HubConfiguration(port: 0, mapPage: settings), store: store,
                logger: log?.logger ?? Fixtures.logger)
            try await app.test(.live) { client in try await test(KeyCaseCheckedClient(base: client)) }
        }
    }

    static var leafletInstalled: Bool { FileManager.default.isReadableFile(atPath: MapPageSettings.debianLeaflet + "/leaflet.js") }

    @Test func thePageAndItsFiles() async throws {
        guard Self.leafletInstalled else {
            if ProcessInfo.processInfo.environment["CI"] == "true" {
                Issue.record("libjs-leaflet is missing, and CI=true (scripts/ensure-deps.sh installs it)")
            }
            return
        }
        let settings = MapPageSettings(
            basemapURL: "https://tile.example.org/{z}/{x}/{y}.png",
            basemapAttribution: "© Example </script><b>x</b> & co")
        try await Self.withHub(settings) { client in
            let page = try await client.execute(uri: "/map", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            let html = String(buffer: page.body)
            #expect(html.contains("https://tile.example.org/{z}/{x}/{y}.png"))
            // The operator's text cannot end the config element or add markup to the page.
            #expect(html.contains(#"© Example \u003c/script\u003e\u003cb\u003ex\u003c/b\u003e \u0026 co"#), "\(html)")
            #expect(!html.contains("<b>x</b>"))
            for (uri, type) in [
                ("/map/map.js", "text/javascript; charset=utf-8"), ("/map/map.css", "text/css; charset=utf-8"),
                ("/map/leaflet/leaflet.js", "text/javascript; charset=utf-8"), ("/map/leaflet/leaflet.css", "text/css; charset=utf-8"),
                ("/map/leaflet/images/layers.png", "image/png"),
            ] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(
                    r.status == .ok && r.headers[.contentType] == type && r.body.readableBytes > 100, "\(uri): \(r.status) \(r.headers)")
            }
            // The page's own files are those in the tree, compiled into the binary (Package.swift's resources).
            for name in ["map.js", "map.css"] {
                let r = try await client.execute(uri: "/map/" + name, method: .get)
                let file = try String(contentsOfFile: Paths.root + "/Sources/BikePathHub/HTTP/MapPage/" + name, encoding: .utf8)
                #expect(String(buffer: r.body) == file && r.headers[.cacheControl] == "no-cache", "\(name)")
            }
            let plain = try await client.execute(uri: "/map/leaflet/leaflet.js", method: .get)
            let gzip = try await client.execute(uri: "/map/leaflet/leaflet.js", method: .get, headers: [.acceptEncoding: "gzip, deflate"])
            #expect(gzip.headers[.contentEncoding] == "gzip" && gzip.body.readableBytes < plain.body.readableBytes / 2)
            // Only Leaflet's scripts, styles and images, by plain name.
            for uri in [
                "/map/leaflet/..%2F..%2Fpasswd", "/map/leaflet/leaflet.css.map", "/map/leaflet/.hidden.js", "/map/leaflet/nothere.js",
                "/map/leaflet/images/..%2Fleaflet.js",
            ] {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .notFound, "\(uri): \(r.status)")
            }
            let post = try await client.execute(uri: "/map", method: .post)
            #expect(post.status == .methodNotAllowed && post.headers[.allow] == "GET")
        }
    }

    @Test func withoutLeafletThePageSaysWhy() async throws {
        let log = CapturedLog()
        let dir = try TempDir()
        defer { dir.cleanup() }
        try await Self.withHub(MapPageSettings(leafletDirectory: dir.file("no-leaflet")), log: log) { client in
            for _ in 0..<2 {
                let page = try await client.execute(uri: "/map", method: .get)
                #expect(page.status == .serviceUnavailable)
                let html = String(buffer: page.body)
                #expect(html.contains("libjs-leaflet") && html.contains(dir.file("no-leaflet") + "/leaflet.js"), "\(html)")
            }
            #expect(try await client.execute(uri: "/map/leaflet/leaflet.js", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/map/map.css", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/v1/health", method: .get).status == .ok)
        }
        let said = log.all.filter { $0.message.contains("libjs-leaflet") }
        // Once when the hub starts, once at the first request: not at every request.
        #expect(said.map(\.level) == [.warning, .error], "\(said.map(\.message))")
    }

    @Test func basemapAndViewOptions() {
        #expect(MapPageSettings.problem(basemapURL: "https://a.example/{z}/{x}/{y}.png") == nil)
        #expect(MapPageSettings.problem(basemapURL: "javascript:alert(1)//{z}{x}{y}") != nil)
        #expect(MapPageSettings.problem(basemapURL: "https://a.example/tiles.png") != nil)
        #expect(MapPageSettings(basemapURL: "").basemapURL == nil)
        #expect(MapPageSettings.View("51.51,-0.12,13") == MapPageSettings.View(latitude: 51.51, longitude: -0.12, zoom: 13))
        #expect(
            MapPageSettings.View("51.51,-0.12") == nil && MapPageSettings.View("91,0,3") == nil && MapPageSettings.View("1,2,25") == nil)
    }
}
