import Foundation
import NIOCore

/// The map page's HTML (here: it carries the hub's settings) and its script and style
/// (`map.js`, `map.css` beside this file, compiled in as SwiftPM resources, linted by
/// scripts/lint/page), so an installed `bikepath-hub` needs no files beside it but
/// Leaflet's. Plain HTML, CSS and JavaScript: no build step, no library but Leaflet.
enum MapPageAssets {
    static let script = ByteBuffer(bytes: PackageResources.map_js)
    static let style = ByteBuffer(bytes: PackageResources.map_css)

    /// The page; `config` is the JSON its script reads (`MapPage.config`).
    static func page(config: Data) -> String {
        // JSON inside a <script> element: no `<` may end the element early.
        let json = String(decoding: config, as: UTF8.self)
            .replacingOccurrences(of: "<", with: "\\u003c").replacingOccurrences(of: ">", with: "\\u003e").replacingOccurrences(
                of: "&", with: "\\u0026")
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Bike paths · BikePath</title>
            <link rel="stylesheet" href="/map/leaflet/leaflet.css">
            <link rel="stylesheet" href="/map/map.css">
            </head><body>
            <h1>Bike paths</h1>
            <div id="map" aria-label="Map of the riders' bike paths"></div>
            <main>
            <p id="notice" role="status"></p>
            <fieldset id="layers"><legend>Show</legend>
            <label class="toggle"><input type="checkbox" id="show-network" checked> Path status</label>
            <label class="toggle"><input type="checkbox" id="show-obstacles" checked> Obstacles</label>
            <label class="toggle"><input type="checkbox" id="show-heatmap"> Heatmap</label>
            </fieldset>
            <p class="key" id="key"><span><i class="s-optimal"></i>optimal</span> <span><i class="s-medium"></i>medium</span>
            <span><i class="s-sufficient"></i>sufficient</span> <span><i class="s-requiresMaintenance"></i>needs maintenance</span>
            <span><i class="s-unknown"></i>unknown</span> <span><b class="dot">●</b>obstacle</span></p>
            <h2>Find bike paths</h2>
            <p id="hint">Tap the map for the start, then for the destination, or type a place's name or LAT,LON.</p>
            <form id="route-form" novalidate>
            <label for="from">From</label><input type="text" id="from" name="from" autocomplete="off" spellcheck="false" placeholder="a place or 52.5100,13.3200">
            <ul id="from-suggestions" class="suggestions" aria-label="Places for From" hidden></ul>
            <label for="to">To</label><input type="text" id="to" name="to" autocomplete="off" spellcheck="false" placeholder="a place or 52.5200,13.3500">
            <ul id="to-suggestions" class="suggestions" aria-label="Places for To" hidden></ul>
            <div class="buttons"><button type="submit" id="find" class="primary">Show paths</button>
            <button type="button" id="clear">Clear</button></div>
            </form>
            <p id="route-error" class="err" role="alert" hidden></p>
            <ol id="routes" aria-label="Routes, best first"></ol>
            </main>
            <script type="application/json" id="config">\(json)</script>
            <script src="/map/leaflet/leaflet.js"></script>
            <script src="/map/map.js"></script>
            </body></html>

            """
    }

    /// What `/map` answers when Leaflet is not installed: the reason, and the API that still works.
    static func unavailable(missing: String) -> String {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Map unavailable · BikePath</title><link rel="stylesheet" href="/map/map.css">
        </head><body><main>
        <h1>The map is not available</h1>
        <p class="err" id="unavailable">This hub cannot show its map: <code>\(html(missing))</code> is missing.
        The map page needs Leaflet from Debian's <code>libjs-leaflet</code> package; the hub's operator can install it
        (<code>apt-get install libjs-leaflet</code>) and reload this page.</p>
        <p>The map's data is still served as GeoJSON: <code>/v1/map/obstacles</code>, <code>/v1/map/status</code>
        and <code>/v1/map/heatmap</code> (docs/api.yaml).</p>
        </main></body></html>

        """
    }

    static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(
            of: ">", with: "&gt;"
        )
        .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
    }
}
