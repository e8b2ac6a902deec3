import BikePathStore
import BikePathTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import BikePathReview

/// The review page's confirm button publishes a ride, so every answer says who may frame
/// the page (no one: clickjacking) and what it may load: the four security headers.
@Suite(.ownThreads) struct SecurityHeaderTests {
    static let policy =
        "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    /// The four fields, exactly, on one answer.
    static func expectHeaders(_ fields: HTTPFields, _ what: String) {
        #expect(fields[.contentSecurityPolicy] == policy, "\(what)")
        #expect(fields[HTTPField.Name("X-Frame-Options")!] == "DENY", "\(what)")
        #expect(fields[.xContentTypeOptions] == "nosniff", "\(what)")
        #expect(fields[HTTPField.Name("Referrer-Policy")!] == "no-referrer", "\(what)")
    }

    @Test func everyRouteAndEveryErrorCarriesTheHeaders() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let drafts = try await store.listDrafts()
        let id = drafts[0].id, other = drafts[1].id
        let obstacle = try #require(try await store.draft(id).obstacles.first { !$0.heldBack }?.id)
        try await reviewApp(store).test(.router) { client in
            let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
            // Before pairing: the pairing page, its refusals, redirects, the stylesheet, unknown paths.
            let unpaired: [(HTTPRequest.Method, String, String, HTTPResponse.Status)] = [
                (.get, "/pair", "", .ok), (.post, "/pair", "code=000000x", .forbidden), (.post, "/pair", "code[x]=1", .badRequest),
                (.get, "/review.css", "", .ok), (.get, "/", "", .seeOther), (.get, "/drafts/\(id)", "", .seeOther),
                (.post, "/drafts/\(id)/confirm", "csrf=x", .forbidden), (.get, "/nothing-here", "", .notFound),
                (.get, "/tiles/1/1/1", "", .notFound),
            ]
            for (method, uri, body, status) in unpaired {
                try await client.execute(uri: uri, method: method, headers: form, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == status, "\(method) \(uri)")
                    Self.expectHeaders(response.headers, "\(method) \(uri) → \(response.status)")
                }
            }
            let p = try await pair(client, store: store, draftID: id)
            try await client.execute(
                uri: "/drafts/\(other)/reject", method: .post, headers: p.headers, body: ByteBuffer(string: "csrf=\(p.csrf)")
            ) {
                #expect($0.status == .seeOther)
            }
            let csrf = "csrf=\(p.csrf)"
            let paired: [(HTTPRequest.Method, String, String, HTTPResponse.Status)] = [
                (.get, "/", "", .ok), (.get, "/trips", "", .ok), (.get, "/drafts/\(id)", "", .ok), (.get, "/drafts/1", "", .ok),
                (.get, "/drafts/\(id)/map.svg", "", .ok), (.get, "/drafts/\(id)/add?kind=bump&map.x=1&map.y=1", "", .ok),
                (.get, "/drafts/\(id)/reject", "", .ok), (.get, "/drafts/9999", "", .notFound),
                (.get, "/drafts/\(other)/reject", "", .conflict), (.get, "/drafts/\(other)/add", "", .conflict),
                (.post, "/drafts/\(id)/confirm", "csrf=stale", .forbidden),
                (.post, "/drafts/\(id)/path-status", csrf + "&status=bumpy", .badRequest),
                (.post, "/drafts/\(id)/obstacles/\(obstacle)/kind", csrf + "&kind=debris", .seeOther),
                (.post, "/drafts/\(id)/obstacles/nope/drop", csrf, .notFound), (.post, "/drafts/9999/undo", csrf, .notFound),
                (.post, "/drafts/\(id)/confirm", csrf, .seeOther), (.post, "/drafts/\(id)/confirm", csrf, .conflict),
                (.post, "/drafts/\(id)/confirm", "csrf[x]=1", .badRequest),
            ]
            var headers = p.headers
            headers[.contentType] = "application/x-www-form-urlencoded"
            for (method, uri, body, status) in paired {
                try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(string: body)) { response in
                    #expect(response.status == status, "\(method) \(uri)")
                    Self.expectHeaders(response.headers, "\(method) \(uri) → \(response.status)")
                }
            }
            try await client.execute(uri: "/review.css", method: .get) { response in
                #expect(response.headers[.contentType] == "text/css; charset=utf-8" && response.headers[.cacheControl] == "no-cache")
                // The file in the tree, compiled into the binary (Package.swift's resources), byte for byte.
                let file = try String(contentsOfFile: Paths.root + "/Sources/BikePathReview/Assets/review.css", encoding: .utf8)
                #expect(String(buffer: response.body) == file && file == ReviewTemplates.stylesheet)
            }
        }
    }

    /// What the policy forbids, the pages must not need: no inline style or script, no
    /// resource of another origin (the browser test is the judge that they still work).
    @Test func thePagesNeedNothingThePolicyForbids() async throws {
        try await withPairedDraft { store, id, client, p in
            for uri in ["/pair", "/", "/trips", "/drafts/\(id)", "/drafts/\(id)/add?kind=bump&map.x=10&map.y=10", "/drafts/\(id)/reject"] {
                try await client.execute(uri: uri, method: .get, headers: p.headers) { response in
                    let html = String(buffer: response.body)
                    for forbidden in ["style=", "<style", "<script", "javascript:", #"src="http"#, #"href="http"#] {
                        #expect(!html.contains(forbidden), "\(uri) holds \(forbidden)")
                    }
                    #expect(html.range(of: #"\son[a-z]+="#, options: .regularExpression) == nil, "\(uri) holds an event handler")
                    #expect(html.contains(#"<link rel="stylesheet" href="/review.css">"#), "\(uri)")
                }
            }
        }
    }

    /// With `review.tiles_url` the tile server's origin may serve images, and nothing else of it.
    @Test func aTileServerIsTheOneOtherImageOrigin() {
        func policy(_ template: String) -> String {
            ReviewSecurityHeaders.contentSecurityPolicy(.tiles(template: template, attribution: "", maxZoom: 19))
        }
        #expect(policy("https://tile.openstreetmap.org/{z}/{x}/{y}.png").contains("img-src 'self' https://tile.openstreetmap.org;"))
        #expect(policy("http://10.0.0.2:8080/t/{z}/{x}/{y}.png").contains("img-src 'self' http://10.0.0.2:8080;"))
        // A templated host is no CSP source: the scheme alone.
        #expect(policy("https://{s}.tile.example/{z}/{x}/{y}.png").contains("img-src 'self' https:;"))
        #expect(ReviewSecurityHeaders.contentSecurityPolicy(.none) == Self.policy)
    }

    /// What the server answers before any route runs: a foreign Host (421), no Host (400), and
    /// a head past 16 KiB (431, answered by the connection guard), on a real socket.
    @Test(.timeLimitOnceRunning(.minutes(2))) func theServersOwnRefusalsCarryTheHeaders() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        try await withReviewServer(store) { port in
            func answer(_ text: String) throws -> (status: String, fields: HTTPFields) {
                let c = try RawConnection(port: port, timeout: 30)
                try c.send(text)
                let lines = c.readResponse().components(separatedBy: "\r\n")
                var fields = HTTPFields()
                for line in lines.dropFirst().prefix(while: { !$0.isEmpty }) {
                    guard let colon = line.firstIndex(of: ":"), let name = HTTPField.Name(String(line[..<colon])) else { continue }
                    fields.append(HTTPField(name: name, value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
                return (lines.first ?? "", fields)
            }
            let cases = [
                ("GET /pair HTTP/1.1\r\nHost: evil.example:\(port)\r\nConnection: close\r\n\r\n", " 421 "),
                ("GET /pair HTTP/1.0\r\n\r\n", " 400 "),
                ("GET /pair HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n", " 431 "),
                ("GET /pair HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n", " 200 "),
            ]
            for (request, status) in cases {
                let (line, fields) = try answer(request)
                #expect(line.contains(status), "\(line)")
                Self.expectHeaders(fields, line)
            }
        }
    }
}
