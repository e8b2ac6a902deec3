import Foundation

/// The map page's HTML and style, kept in the binary (as the review page keeps its
/// templates) so an installed `bikepath-hub` needs no files beside it but Leaflet's.
/// Its script is `MapPageAssets.script` (MapPageScript.swift). Plain HTML, CSS and
/// JavaScript: no build step, no library but Leaflet.
///
/// Sizes: the page fits 360 px wide, and every control (button, input, toggle, Leaflet's
/// zoom buttons, a popup's close button) is at least 44 px tall, as the review page's.
enum MapPageAssets {
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
            <p id="hint">Tap the map for the start, then for the destination, or type each as LAT,LON.</p>
            <form id="route-form" novalidate>
            <label for="from">From</label><input type="text" id="from" name="from" autocomplete="off" spellcheck="false" placeholder="52.5100,13.3200">
            <label for="to">To</label><input type="text" id="to" name="to" autocomplete="off" spellcheck="false" placeholder="52.5200,13.3500">
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

    /// Path-status colours, best to worst (those of the review page's draft map), then grey for unknown.
    static let style = """
        *{box-sizing:border-box}
        html,body{margin:0;padding:0}
        body{font-family:sans-serif;line-height:1.35;overflow-wrap:anywhere;max-width:60em;margin:0 auto;color:#111}
        h1{font-size:1.25em;margin:0;padding:6px 8px}
        h2{font-size:1.1em;margin:.8em 0 .3em}
        main{padding:0 8px 24px}
        #map{height:58vh;min-height:260px;width:100%;background:#fff;border-top:1px solid #bbb;border-bottom:1px solid #bbb}
        #notice{margin:.4em 0;min-height:1.35em;color:#444}
        fieldset{border:0;padding:0;margin:0;display:flex;flex-wrap:wrap;gap:6px}
        legend{float:left;padding:12px 4px 0 0}
        label.toggle{display:inline-flex;align-items:center;gap:.4em;min-height:44px;padding:0 .7em;border:1px solid #999;border-radius:22px;background:#f6f6f6}
        label.toggle input{width:22px;height:22px;margin:0}
        .key{font-size:.9em}
        .key span{white-space:nowrap;margin-right:.5em}
        .key i{display:inline-block;width:1.4em;height:.45em;margin-right:.25em;vertical-align:middle}
        .key .dot{color:#7a1fa2;margin-right:.25em}
        .s-optimal{background:#2a9d3a}.s-medium{background:#e0b000}.s-sufficient{background:#e07000}
        .s-requiresMaintenance{background:#c0162b}.s-unknown{background:#8a8a8a}
        form{display:grid;grid-template-columns:auto minmax(0,1fr);gap:6px 8px;align-items:center}
        input[type=text]{font-size:1em;min-height:44px;width:100%;padding:.4em;border:1px solid #767676;border-radius:3px}
        .buttons{grid-column:1/-1;display:flex;flex-wrap:wrap;gap:8px}
        button{font-size:1em;min-height:44px;padding:.5em .9em;border:1px solid #767676;border-radius:3px;background:#efefef;color:#000;max-width:100%}
        .primary{background:#1f5fbf;color:#fff;border-color:#1f5fbf}
        .err{padding:.5em;background:#fbe4e4;border:1px solid #c0162b}
        code{overflow-wrap:anywhere}
        #routes{list-style:none;padding:0;margin:.5em 0}
        #routes button{display:block;width:100%;text-align:left;margin:0 0 8px;background:#fff;border-radius:6px}
        #routes button.best{border:3px solid #1f5fbf}
        #routes button[aria-pressed=true]{background:#eaf1fc;outline:3px solid #f0a000}
        .badge{display:inline-block;background:#1f5fbf;color:#fff;border-radius:3px;padding:0 .4em;font-weight:bold;margin-right:.3em}
        .alt{display:inline-block;background:#6a4c93;color:#fff;border-radius:3px;padding:0 .4em;margin-right:.3em}
        .bar{display:flex;height:10px;margin:.35em 0;border-radius:5px;overflow:hidden;background:#ddd}
        .detail{display:block;font-size:.9em;color:#333}
        .leaflet-touch .leaflet-bar a{width:44px;height:44px;line-height:44px}
        .leaflet-container a.leaflet-popup-close-button{width:44px;height:44px;font:24px/44px sans-serif;padding:0}
        .leaflet-popup-content{margin:12px 40px 12px 14px}
        .leaflet-container .leaflet-control-attribution{max-width:calc(100vw - 20px);white-space:normal}
        """
}
