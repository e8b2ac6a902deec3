import Mustache

/// The page templates (Mustache). Kept in the binary, not in a resource bundle,
/// so an installed `bikepathd` needs no files beside it. No JavaScript, no
/// external resources: the page works on a phone with no internet.
enum ReviewTemplates {
    static func library() throws -> MustacheLibrary {
        var library = MustacheLibrary()
        for (name, text) in all { try library.register(text, named: name) }
        return library
    }

    static let all: [(String, String)] = [("head", head), ("foot", foot), ("list", list), ("draft", draft), ("trips", trips),
                                          ("pair", pair), ("problem", problem)]

    static let head = """
        <!doctype html><html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · BikePath</title>
        <style>
        body{font-family:sans-serif;margin:0 auto;max-width:40em;padding:.5em;line-height:1.35}
        nav a{margin-right:1em} table{border-collapse:collapse;width:100%} td,th{padding:.3em;border-bottom:1px solid #ddd;text-align:left}
        .msg{padding:.5em;background:#e6f4e6;border:1px solid #2a9d3a}.err{background:#fbe4e4;border-color:#c0162b}
        .cand{border:1px solid #ccc;border-radius:6px;padding:.4em;margin:.4em 0}.dropped{opacity:.5}
        form.inline{display:inline} button,select,input{font-size:1em;padding:.3em .6em;margin:.15em 0}
        .map{display:block;border:1px solid #999;max-width:none}.num{font-weight:bold}
        .key span{display:inline-block;width:1em;height:.6em;margin:0 .3em 0 .6em}
        </style></head><body>
        <nav><a href="/">Drafts</a><a href="/trips">Trips and totals</a></nav>
        <h1>{{title}}</h1>
        {{#message}}<p class="msg{{#isError}} err{{/isError}}" id="message">{{text}}</p>{{/message}}
        """

    static let foot = "</body></html>\n"

    static let list = """
        {{> head}}
        {{^drafts}}<p>No drafts yet: a trip becomes a draft when it ends.</p>{{/drafts}}
        <table id="drafts"><tr><th>#</th><th>Date</th><th>Distance</th><th>Duration</th><th>Waiting</th><th>State</th></tr>
        {{#drafts}}<tr><td class="num">{{number}}</td><td><a href="/drafts/{{id}}" id="draft-{{number}}">{{date}} {{time}}</a></td>
        <td>{{distance}}</td><td>{{duration}}</td><td>{{waiting}}</td><td>{{state}}</td></tr>
        {{/drafts}}</table>
        {{> foot}}
        """

    static let draft = """
        {{> head}}
        <p>{{date}} {{time}} · {{distance}} · {{duration}} · state <b id="state">{{state}}</b> · path <b>{{pathStatus}}</b></p>
        {{#pending}}
        <form method="post" action="/drafts/{{id}}/obstacles" id="add-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Missed one? Pick its kind, then tap the path:
        <select name="kind" id="add-kind">{{#kinds}}<option value="{{value}}">{{value}}</option>{{/kinds}}</select></label>
        <input type="image" class="map" id="map" name="map" alt="map of the ride" src="/drafts/{{id}}/map.svg" width="{{mapWidth}}" height="{{mapHeight}}">
        </form>
        {{/pending}}
        {{^pending}}<img class="map" id="map" alt="map of the ride" src="/drafts/{{id}}/map.svg" width="{{mapWidth}}" height="{{mapHeight}}">{{/pending}}
        <p class="key">{{#statusKey}}<span style="background:{{colour}}"></span>{{name}}{{/statusKey}}</p>
        <h2>Candidates</h2>
        {{^obstacles}}<p>None to review.</p>{{/obstacles}}
        {{#obstacles}}<div class="cand{{#dropped}} dropped{{/dropped}}" id="cand-{{number}}">
        <span class="num">{{number}}</span> <b class="kind">{{kind}}</b> {{#dropped}}(dropped){{/dropped}} · {{origin}}
        · severity {{severity}} · {{speed}} · {{clock}} · {{along}} along the path<br>
        {{{plot}}}
        {{#editable}}
        <form class="inline" method="post" action="/drafts/{{draftID}}/obstacles/{{id}}/drop"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="drop-{{number}}">Drop</button></form>
        <form class="inline" method="post" action="/drafts/{{draftID}}/obstacles/{{id}}/kind"><input type="hidden" name="csrf" value="{{csrf}}">
        <select name="kind" id="kind-{{number}}">{{#kinds}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/kinds}}</select>
        <button id="setkind-{{number}}">Change kind</button></form>
        {{/editable}}
        </div>{{/obstacles}}
        {{#heldBack}}<p>{{heldBack}} weaker candidate(s) held back: not asked about, kept for road quality.</p>{{/heldBack}}
        {{#pending}}
        <h2>The path</h2>
        <form method="post" action="/drafts/{{id}}/path-status"><input type="hidden" name="csrf" value="{{csrf}}">
        <select name="status" id="path-status">{{#statuses}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{value}}</option>{{/statuses}}</select>
        <button id="set-path-status">Rate the path</button></form>
        <h2>Done?</h2>
        {{#hasEdits}}<form class="inline" method="post" action="/drafts/{{id}}/undo"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="undo">Undo the last edit</button></form>{{/hasEdits}}
        <form class="inline" method="post" action="/drafts/{{id}}/confirm"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="confirm">Confirm and publish</button></form>
        <form class="inline" method="post" action="/drafts/{{id}}/reject"><input type="hidden" name="csrf" value="{{csrf}}">
        <button id="reject">Reject</button></form>
        {{/pending}}
        {{#hasEdits}}<h2>Edits</h2><ol id="edits">{{#edits}}<li>{{.}}</li>{{/edits}}</ol>{{/hasEdits}}
        {{> foot}}
        """

    static let trips = """
        {{> head}}
        <table id="totals"><tr><td>Trips</td><td>{{trips}}</td></tr><tr><td>Distance</td><td>{{distance}}</td></tr>
        <tr><td>Time riding</td><td>{{moving}}</td></tr><tr><td>CO₂ avoided</td><td>{{co2}}</td></tr></table>
        <h2>Milestones</h2>{{^milestones}}<p>The first comes at {{firstMilestone}}.</p>{{/milestones}}
        <ul>{{#milestones}}<li>{{.}}</li>{{/milestones}}</ul>
        <h2>Trips</h2><table>{{#rides}}<tr><td><a href="/drafts/{{id}}">{{date}} {{time}}</a></td><td>{{distance}}</td><td>{{duration}}</td></tr>{{/rides}}</table>
        {{> foot}}
        """

    static let pair = """
        {{> head}}
        <p>Type the code that <code>bikepathd review pair</code> shows (or that the daemon printed when it started).</p>
        <form method="post" action="/pair"><input name="code" id="code" inputmode="numeric" autocomplete="one-time-code" size="8">
        <button id="pair">Pair</button></form>
        {{> foot}}
        """

    static let problem = """
        {{> head}}
        <p><a href="/">Back to the drafts</a></p>
        {{> foot}}
        """
}
