import BikePathAPI
import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// What `bikepath-hub serve` says about the map page (docs/hub.md, "Map page").
public struct MapPageSettings: Sendable, Equatable {
    /// A tile URL template (`https://tile.example.org/{z}/{x}/{y}.png`); nil: no basemap, the
    /// overlays on white.
    public var basemapURL: String?
    /// The basemap's attribution, plain text (shown as written, never as HTML).
    public var basemapAttribution: String
    /// Where Debian's `libjs-leaflet` puts Leaflet.
    public var leafletDirectory: String
    /// Where the page opens when its address names no place (`#ZOOM/LAT/LON`): nil, the whole world.
    public var view: View?

    public struct View: Sendable, Equatable, Encodable {
        public var latitude: Double, longitude: Double, zoom: Int
        public init(latitude: Double, longitude: Double, zoom: Int) {
            (self.latitude, self.longitude, self.zoom) = (latitude, longitude, zoom)
        }

        /// `LAT,LON,ZOOM`, or nil when it is not that.
        public init?(_ text: String) {
            let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 3, let lat = Double(parts[0]), let lon = Double(parts[1]), let zoom = Int(parts[2]),
                abs(lat) <= 85, abs(lon) <= 180, (0...19).contains(zoom)
            else { return nil }
            self.init(latitude: lat, longitude: lon, zoom: zoom)
        }
    }

    public static let debianLeaflet = "/usr/share/javascript/leaflet"

    public init(
        basemapURL: String? = nil, basemapAttribution: String = "", leafletDirectory: String = Self.debianLeaflet, view: View? = nil
    ) {
        self.basemapURL = basemapURL.flatMap { $0.isEmpty ? nil : $0 }
        self.basemapAttribution = basemapAttribution
        self.leafletDirectory = leafletDirectory
        self.view = view
    }

    /// Why `url` is not a tile URL template the page can use, or nil.
    public static func problem(basemapURL url: String) -> String? {
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else { return "--basemap-url must start with https:// or http://" }
        guard ["{z}", "{x}", "{y}"].allSatisfy(url.contains) else { return "--basemap-url must hold {z}, {x} and {y}" }
        return nil
    }
}

/// The public map page (`/map`, docs/hub.md "Map page"): one HTML page, its script and
/// style (`MapPageAssets`: map.js and map.css, compiled into the binary), and
/// Leaflet read from `libjs-leaflet`'s directory under `/map/leaflet/`. The page asks
/// the public read API for everything it shows; nothing here reads the store.
struct MapPage: Sendable {
    let settings: MapPageSettings
    let logger: Logger
    private let files = LeafletFiles()

    init(settings: MapPageSettings, logger: Logger) {
        self.settings = settings
        self.logger = logger
        if let missing = missingLeaflet() {
            logger.warning("the map page (/map) cannot work: \(missing) is missing; install Debian's libjs-leaflet")
        }
    }

    func add(to router: Router<HubContext>, table: RouteTable) {
        table.on(router, "map", .get) { _, _ in
            if let missing = missingLeaflet() {
                if files.noteMissing() { logger.error("/map answered 503: \(missing) is missing; install Debian's libjs-leaflet") }
                return Self.page(.serviceUnavailable, MapPageAssets.unavailable(missing: missing))
            }
            return Self.page(.ok, MapPageAssets.page(config: config))
        }
        table.on(router, "map/map.js", .get) { _, _ in Self.asset(MapPageAssets.script, type: "text/javascript; charset=utf-8") }
        table.on(router, "map/map.css", .get) { _, _ in Self.asset(MapPageAssets.style, type: "text/css; charset=utf-8") }
        table.on(router, "map/leaflet/:file", .get) { request, context in
            try await leaflet(context.parameters.get("file") ?? "", request)
        }
        table.on(router, "map/leaflet/images/:file", .get) { request, context in
            try await leaflet("images/" + (context.parameters.get("file") ?? ""), request)
        }
    }

    /// The page's settings as the JSON its script reads.
    var config: Data {
        struct Config: Encodable {
            var basemapURL: String?, basemapAttribution: String, view: MapPageSettings.View?, maxSquareKm: Double
            var streetsMaxSquareKm: Double
            enum CodingKeys: String, CodingKey {
                case basemapURL = "basemap_url", basemapAttribution = "basemap_attribution", view, maxSquareKm = "max_square_km"
                case streetsMaxSquareKm = "streets_max_square_km"
            }
        }
        let value = Config(
            basemapURL: settings.basemapURL, basemapAttribution: settings.basemapAttribution, view: settings.view, maxSquareKm: 10_000,
            streetsMaxSquareKm: StreetsAnswer.maxSquareKm)
        return (try? WireJSON.encode(value)) ?? Data("{}".utf8)
    }

    /// The Leaflet file the page cannot do without that is not there, or nil.
    func missingLeaflet() -> String? {
        ["leaflet.js", "leaflet.css"].map { settings.leafletDirectory + "/" + $0 }.first { !FileManager.default.isReadableFile(atPath: $0) }
    }

    /// A file of Leaflet's directory: only plain names of scripts, styles and images (no
    /// `..`, nothing else of the machine), read once off the event loop and then kept.
    private func leaflet(_ name: String, _ request: Request) async throws -> Response {
        guard LeafletFiles.servable(name) else { return Self.notFound("no such Leaflet file") }
        let path = settings.leafletDirectory + "/" + name
        guard let file = try await files.get(path) else {
            return Self.notFound("\(path) is missing: Debian's libjs-leaflet is not installed on this hub")
        }
        var headers: HTTPFields = [.contentType: LeafletFiles.contentType(name), .cacheControl: "public, max-age=86400"]
        headers[.vary] = "Accept-Encoding"
        if let gzip = file.gzip, (request.headers[.acceptEncoding] ?? "").lowercased().contains("gzip") {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzip))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.plain))
    }

    /// The page's own script and style: small, in the binary.
    private static func asset(_ bytes: ByteBuffer, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-cache"], body: .init(byteBuffer: bytes))
    }

    private static func page(_ status: HTTPResponse.Status, _ html: String) -> Response {
        var headers: HTTPFields = [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"]
        // Scripts only from the hub; tiles from wherever the basemap is; no Referer to the tile server.
        headers[.contentSecurityPolicy] =
            "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http:; "
            + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    private static func notFound(_ message: String) -> Response {
        HubServer.answer(Refusal(.notFound, "not-found", message))
    }
}

/// Leaflet's files, each read once (plain and gzipped) and then served from memory:
/// about 450 KB in all.
final class LeafletFiles: Sendable {
    struct File: Sendable { let plain: ByteBuffer; let gzip: ByteBuffer? }
    private let cache = Mutex<[String: File]>([:])
    private let missingLogged = Mutex(false)

    /// True the first time it is called (the missing files are logged once, not per request).
    func noteMissing() -> Bool {
        missingLogged.withLock { logged in
            defer { logged = true }; return !logged
        }
    }

    /// `leaflet.js`, `leaflet.css`, `images/marker-icon.png`: a plain name, optionally under images/.
    static func servable(_ name: String) -> Bool {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard (parts.count == 1 || (parts.count == 2 && parts[0] == "images")), let last = parts.last,
            let first = last.first, first.isLetter || first.isNumber,
            last.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) })
        else { return false }
        return ["js", "css", "png"].contains(last.split(separator: ".").last.map(String.init) ?? "")
    }

    static func contentType(_ name: String) -> String {
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        return "image/png"
    }

    func get(_ path: String) async throws -> File? {
        if let hit = cache.withLock({ $0[path] }) { return hit }
        let data: Data? = try await NIOThreadPool.singleton.runIfActive { FileManager.default.contents(atPath: path) }
        guard let data else { return nil }
        let plain = ByteBuffer(bytes: data)
        var input = plain  // compressing reads its input
        var gzip = try? input.compress(with: .gzip)
        if let g = gzip, g.readableBytes >= plain.readableBytes { gzip = nil }  // PNGs do not shrink
        let file = File(plain: plain, gzip: gzip)
        cache.withLock { $0[path] = file }
        return file
    }
}
