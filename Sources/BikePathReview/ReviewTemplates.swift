import Mustache

/// The page templates (Mustache) and its stylesheet. Kept in the binary, not in a resource
/// bundle, so an installed `bikepathd` needs no files beside it. No JavaScript, no
/// external resources: the page works on a phone with no internet.
enum ReviewTemplates {
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in all { try library.register(text, named: name) }
        return library
    }

    static let all: [(String, String)] = [
        ("head", head), ("foot", foot), ("list", list), ("draft", draft), ("trips", trips),
        ("pair", pair), ("problem", problem), ("add", add), ("reject", reject),
        ("tile", tile), ("street", street),
    ]

    static let head = """
        <!doctype html><html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · BikePath</title>
        <link rel="stylesheet" href="\(stylesheetPath)">
        </head><body>
        <nav><a href="/">Drafts</a><a href="/trips">Trips and totals</a></nav>
        <h1>{{title}}</h1>
        {{#message}}<p class="msg{{#isError}} err{{/isError}}" id="message">{{text}}</p>{{/message}}
        """

    /// Where the page's one stylesheet is served (`ReviewRoutes`): a file of the page's own
    /// origin, so the Content-Security-Policy allows `style-src 'self'` and no inline style.
    static let stylesheetPath = "/review.css"

    /// The page's stylesheet (Assets/review.css, compiled in as a SwiftPM resource, linted by
    /// scripts/lint/page).
    static let stylesheet = String(decoding: PackageResources.review_css, as: UTF8.self)

    static let foot = "</body></html>\n"

    // The street tiles, loaded by the phone itself; no Referer (Referrer-Policy: no-referrer on every
    // answer, ReviewSecurityHeaders), so the tile server is not told the page's address.
    static let tile = """
        {{#tileLayer}}<svg class="tiles" width="{{width}}" height="{{height}}" aria-hidden="true">{{#tiles}}\
        <image class="tile" href="{{url}}" x="{{left}}" y="{{top}}" width="{{size}}" height="{{size}}"/>{{/tiles}}</svg>{{/tileLayer}}
        """

    static let street = """
        {{#attribution}}street map {{.}}{{/attribution}}{{^attribution}}no street map: the path alone, to scale{{/attribution}}
        """

    static let list = """
        {{> head}}
        {{^drafts}}<p>No drafts yet: a trip becomes a draft when it ends.</p>{{/drafts}}
        <table id="drafts"><tr><th>#</th><th>Ride</th><th>Length</th><th>To check</th><th>State</th></tr>
        {{#drafts}}<tr><td class="num">{{number}}</td><td><a href="/drafts/{{id}}" id="draft-{{number}}">{{date}}<br>{{time}}</a></td>
        <td>{{distance}}<br>{{duration}}</td><td>{{waiting}}</td><td>{{state}}</td></tr>
        {{/drafts}}</table>
        {{> foot}}
        """

    // The map is drawn inline so that each numbered dot is a link to its candidate:
    // tapping one opens it and changes nothing. Adding is a mode of its own (/add).
    static let draft = """
        {{> head}}
        <p>{{date}} {{time}} · {{distance}} · {{duration}}<br>state <b id="state">{{state}}</b> · path <b id="path-word">{{pathStatus}}</b></p>
        <div class="map" id="map">{{> tile}}{{{map}}}</div>
        <p class="key">{{#statusKey}}<svg width="16" height="10" aria-hidden="true"><rect width="16" height="10" fill="{{colour}}"/></svg>{{name}}{{/statusKey}}
        <br><b class="startkey">●</b> start · ■ end · N north · {{> street}}</p>
        {{#pending}}<p><a class="btn" id="add" href="/drafts/{{id}}/add">Add a missed obstacle</a></p>{{/pending}}
        <h2>Candidates</h2>
        {{^obstacles}}<p>None to review.</p>{{/obstacles}}
        {{#obstacles}}<div class="cand{{#dropped}} dropped{{/dropped}}" id="cand-{{number}}">
        <span class="num">{{number}}</span> <b class="kind">{{kind}}</b> {{#dropped}}(dropped){{/dropped}} · <span class="facts">{{facts}}</span><br>
        {{{plot}}}
        {{#editable}}
        <form class="inline" method="post" action="/drafts/{{draftID}}/obstacles/{{id}}/drop"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="drop-{{number}}">Drop</button></form>
        <form class="inline" method="post" action="/drafts/{{draftID}}/obstacles/{{id}}/kind"><input type="hidden" name="csrf" value="{{csrf}}">
        <select name="kind" id="kind-{{number}}">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select>
        <button id="setkind-{{number}}">Change kind</button></form>
        {{/editable}}
        </div>{{/obstacles}}
        {{#heldBack}}<p id="held-back">{{.}}</p>{{/heldBack}}
        {{#pending}}
        <h2>The path</h2>
        <form method="post" action="/drafts/{{id}}/path-status"><input type="hidden" name="csrf" value="{{csrf}}">
        <select name="status" id="path-status">{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/statuses}}</select>
        <button id="set-path-status">Rate the path</button></form>
        {{/pending}}
        <h2>Publishing</h2>
        {{#sharing}}<p id="sharing">{{text}}</p>
        {{#canTurnOn}}<form method="post" action="/drafts/{{id}}/sharing"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="trips" value="on"><button id="sharing-on">Turn trip sharing on</button></form>{{/canTurnOn}}
        {{#canTurnOff}}<form method="post" action="/drafts/{{id}}/sharing"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="trips" value="off"><button id="sharing-off">Turn trip sharing off</button></form>{{/canTurnOff}}
        {{/sharing}}
        {{#pending}}
        <h2>Done?</h2>
        {{#hasEdits}}<form method="post" action="/drafts/{{id}}/undo"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="undo">Undo the last edit</button></form>{{/hasEdits}}
        <form method="post" action="/drafts/{{id}}/confirm"><input type="hidden" name="csrf" value="{{csrf}}">
        <button class="primary" id="confirm">Confirm and publish</button></form>
        <p class="apart"><a class="btn danger" id="reject" href="/drafts/{{id}}/reject">Reject this ride…</a></p>
        {{/pending}}
        {{#rejected}}
        <form method="post" action="/drafts/{{id}}/reopen"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="reopen">Undo reject</button></form>
        {{/rejected}}
        {{#hasEdits}}<h2>Edits</h2><ol id="edits">{{#edits}}<li>{{.}}</li>{{/edits}}</ol>{{/hasEdits}}
        {{> foot}}
        """

    // Add mode, three steps on one page with no JavaScript: the form is a GET, so a tap
    // only shows the spot (ringed on the map); the POST form below it adds.
    static let add = """
        {{> head}}
        <form method="get" action="/drafts/{{id}}/add">
        <p><label>1. What was it? <select name="kind" id="add-kind">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/kinds}}</select></label></p>
        <p>2. Tap the line where it was{{#spot}} (tap again to move the ring){{/spot}}:</p>
        <div class="map">{{> tile}}
        <input type="image" id="map" name="map" alt="map of the ride: tap the line" src="/drafts/{{id}}/map.svg{{spotQuery}}" width="{{mapWidth}}" height="{{mapHeight}}"></div>
        <p class="key">{{> street}}</p>
        </form>
        {{#spot}}
        <form method="post" action="/drafts/{{id}}/obstacles"><input type="hidden" name="csrf" value="{{csrf}}">
        <input type="hidden" name="kind" value="{{kindValue}}"><input type="hidden" name="map.x" value="{{tapX}}"><input type="hidden" name="map.y" value="{{tapY}}">
        <p>3. The ring is {{along}} along the path.</p>
        <button class="primary" id="add-confirm">{{addButton}}</button></form>
        {{/spot}}
        <p><a class="btn" id="add-cancel" href="/drafts/{{id}}">Cancel</a></p>
        {{> foot}}
        """

    static let reject = """
        {{> head}}
        <p>The ride of {{date}} {{time}} ({{distance}}) will never be sent. It stays on the bike computer, and
        “Undo reject” on its page makes it a draft to review again.</p>
        <form method="post" action="/drafts/{{id}}/reject"><input type="hidden" name="csrf" value="{{csrf}}">
        <button class="danger" id="reject-confirm">Yes, reject this ride</button></form>
        <p><a class="btn" id="reject-cancel" href="/drafts/{{id}}">No, keep it</a></p>
        {{> foot}}
        """

    static let trips = """
        {{> head}}
        <table id="totals"><tr><td>Trips</td><td>{{trips}}</td></tr><tr><td>Distance</td><td>{{distance}}</td></tr>
        <tr><td>Time riding</td><td>{{moving}}</td></tr><tr><td>CO₂ avoided</td><td>{{co2}}</td></tr></table>
        <p id="outbox">Outbox: {{outbox}}</p>
        <h2>Milestones</h2>{{^milestones}}<p>The first comes at {{firstMilestone}}.</p>{{/milestones}}
        <ul>{{#milestones}}<li>{{.}}</li>{{/milestones}}</ul>
        <h2>Trips</h2><table>{{#rides}}<tr><td><a href="/drafts/{{id}}">{{date}} {{time}}</a></td><td>{{distance}}</td><td>{{duration}}</td></tr>{{/rides}}</table>
        {{> foot}}
        """

    static let pair = """
        {{> head}}
        <p>Type the code that <code>bikepathd review pair</code> shows (or that the daemon printed when it started).</p>
        <form method="post" action="/pair"><input name="code" id="code" inputmode="numeric" autocomplete="one-time-code">
        <button id="pair">Pair</button></form>
        {{> foot}}
        """

    static let problem = """
        {{> head}}
        <p><a href="/">Back to the drafts</a></p>
        {{> foot}}
        """
}
