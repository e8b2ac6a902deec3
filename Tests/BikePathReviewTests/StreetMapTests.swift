import BikePathCore
import BikePathStore
import BikePathTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceLifecycle
import Testing
@testable import BikePathReview
#if canImport(Glibc)
    import Glibc
#endif

/// Street context: tiles from a URL template the phone loads, or an MBTiles
/// file on the device served by the page; without either the page says so.
@Suite(.ownThreads) struct StreetMapTests {
    let path = [
        Coordinate(latitude: 52.5200, longitude: 13.4000), Coordinate(latitude: 52.5250, longitude: 13.4100),
        Coordinate(latitude: 52.5220, longitude: 13.4200),
    ]

    @Test func tilesLineUpWithThePath() {
        let p = PathProjection(fitting: path, width: DraftMap.width)
        let layer = TileLayer(p, maxZoom: 19)
        #expect(layer.factor >= 1 && layer.factor < 2)  // the deepest level not finer than the map, drawn 1–2× its size
        for c in path {
            let a = p.point(c), b = layer.point(c)
            #expect(hypot(a.x - b.x, a.y - b.y) < 1, "\(c): map \(a), tiles \(b)")
        }
        let tiles = layer.tiles
        #expect(tiles.allSatisfy { $0.z == layer.zoom })
        #expect(tiles.map(\.left).min()! <= 0 && tiles.map(\.top).min()! <= 0)
        #expect(tiles.map { $0.left + $0.size }.max()! >= p.width && tiles.map { $0.top + $0.size }.max()! >= p.height)
        // A file that stops at zoom 12 is scaled up rather than left blank.
        let shallow = TileLayer(p, maxZoom: 12)
        #expect(shallow.zoom == 12 && shallow.factor > 2)
    }

    @Test func aTileTemplateIsLoadedByThePhoneWithAttribution() async throws {
        try await withPairedDraft { _, id, client, p in
            try await client.execute(uri: "/drafts/\(id)", method: .get, headers: p.headers) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("no street map: the path alone, to scale") && !html.contains(#"class="tile""#))
                #expect(html.contains(##"fill="#f6f6f0""##))
            }
        }
        let street = StreetMap.tiles(
            template: "https://tiles.example/{z}/{x}/{y}.png", attribution: "© OpenStreetMap contributors", maxZoom: 19)
        try await withPairedDraft(streetMap: street) { _, id, client, p in
            for uri in ["/drafts/\(id)", "/drafts/\(id)/add"] {
                try await client.execute(uri: uri, method: .get, headers: p.headers) { response in
                    let html = String(buffer: response.body)
                    #expect(html.contains(#"<image class="tile" href="https://tiles.example/"#), "\(uri)")
                    // No Referer to the tile server: the policy is the page's, for every image on it.
                    #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
                    #expect(response.headers[.contentSecurityPolicy]?.contains("img-src 'self' https://tiles.example;") == true)
                    #expect(html.contains("street map © OpenStreetMap contributors"))
                    #expect(!html.contains("no street map"))
                }
            }
            try await client.execute(uri: "/drafts/\(id)/map.svg", method: .get, headers: p.headers) { response in
                #expect(!String(buffer: response.body).contains(##"fill="#f6f6f0""##))  // the tiles show through
            }
            try await client.execute(uri: "/tiles/1/1/1", method: .get, headers: p.headers) { #expect($0.status == .notFound) }
        }
    }

    @Test func anMBTilesFileIsServedByThePageItself() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        let d = try await store.draft(id)
        let first = try #require(TileLayer(DraftMap(d, shown: d.obstacles.filter { !$0.heldBack }).projection, maxZoom: 16).tiles.first)
        let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let file = dir.file("city.mbtiles")
        let db = try DatabaseQueue(path: file)
        try await db.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('format', 'png'), ('maxzoom', '16');
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    """)
            try db.execute(sql: "INSERT INTO tiles VALUES (?, ?, ?, ?)", arguments: [first.z, first.x, (1 << first.z) - 1 - first.y, png])
        }
        try db.close()
        let mbtiles = try MBTiles(path: file)
        #expect(mbtiles.maxZoom == 16 && mbtiles.contentType == "image/png")
        let app = Application(
            router: try buildReviewRouter(
                store: store, sessions: ReviewSessions(),
                hosts: ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080)),
                publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true, keys: .daemon),
                streetMap: .mbtiles(mbtiles, attribution: "© OpenStreetMap contributors")))
        try await app.test(.router) { client in
            try await client.execute(uri: "/tiles/\(first.z)/\(first.x)/\(first.y)", method: .get) { response in
                #expect(response.status == .seeOther)  // the rider's area: paired phones only
            }
            let p = try await pair(client, store: store, draftID: id)
            try await client.execute(uri: "/drafts/\(id)", method: .get, headers: p.headers) { response in
                #expect(String(buffer: response.body).contains(#"<image class="tile" href="/tiles/\#(first.z)/\#(first.x)/\#(first.y)""#))
            }
            try await client.execute(uri: "/tiles/\(first.z)/\(first.x)/\(first.y)", method: .get, headers: p.headers) { response in
                #expect(response.status == .ok && response.headers[.contentType] == "image/png")
                #expect(Data(response.body.readableBytesView) == png)
            }
            try await client.execute(uri: "/tiles/\(first.z)/\(first.x + 1000)/\(first.y)", method: .get, headers: p.headers) { response in
                #expect(response.status == .notFound)
            }
        }
        // Vector tiles cannot be drawn by an <img>: refused at start, in words.
        let vector = dir.file("vector.mbtiles")
        let v = try DatabaseQueue(path: vector)
        try await v.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('format', 'pbf');
                    CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
                    """)
        }
        try v.close()
        #expect(throws: MBTiles.Problem.notRaster(vector, format: "pbf")) { try MBTiles(path: vector) }
        #expect(throws: MBTiles.Problem.self) { try MBTiles(path: dir.file("missing.mbtiles")) }
    }
}
