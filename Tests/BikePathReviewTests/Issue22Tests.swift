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

/// Issue 22, "The rider's review tells the truth and fits a thumb": the Host check,
/// the startup words, `#N` in URLs, add mode, the reject question and its undo, and
/// the words the page says.
@Suite(.ownThreads) struct HostAndStartupTests {
    let wildcard = ReviewHosts(
        listen: ReviewAddress(host: "0.0.0.0", port: 18083),
        interfaces: {
            [
                InterfaceAddress(interface: "lo", address: "127.0.0.1", isIPv6: false, isLoopback: true),
                InterfaceAddress(interface: "wlan0", address: "192.168.4.1", isIPv6: false, isLoopback: false),
                InterfaceAddress(interface: "wlan0", address: "fe80::1", isIPv6: true, isLoopback: false, isLinkLocal: true),
            ]
        },
        hostName: { "BikePi" })

    @Test func hostMustNameThisMachine() {
        let loopback = ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080), interfaces: { [] }, hostName: { "bikepi" })
        for ok in ["127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "localhost.:8080"] {
            #expect(loopback.accepts(ok), "\(ok)")
        }
        // A rebinding page carries its own name; the host name is not this page's when bound to loopback only.
        for bad in ["evil.example:8080", "bikepi:8080", "192.168.4.1:8080", "", nil] as [String?] {
            #expect(!loopback.accepts(bad), "\(bad ?? "nil")")
        }

        for ok in ["192.168.4.1:18083", "127.0.0.1:18083", "localhost:18083", "bikepi:18083", "bikepi.local", "0.0.0.0:18083"] {
            #expect(wildcard.accepts(ok), "\(ok)")
        }
        for bad in ["evil.example:18083", "10.0.0.9:18083", "bikepi.evil.example", "[fe80::1]:18083"] {
            #expect(!wildcard.accepts(bad), "\(bad)")
        }

        let v6 = ReviewHosts(listen: ReviewAddress("[::1]:8080")!, interfaces: { [] }, hostName: { nil })
        #expect(v6.accepts("[::1]:8080") && v6.accepts("localhost:8080") && !v6.accepts("[::2]:8080"))
    }

    @Test func startupNamesURLsAPhoneCanOpen() {
        let interfaces = [
            InterfaceAddress(interface: "lo", address: "127.0.0.1", isIPv6: false, isLoopback: true),
            InterfaceAddress(interface: "wlan0", address: "192.168.4.1", isIPv6: false, isLoopback: false),
            InterfaceAddress(interface: "eth0", address: "10.0.0.7", isIPv6: false, isLoopback: false),
            InterfaceAddress(interface: "eth0", address: "fd00::7", isIPv6: true, isLoopback: false),
        ]
        #expect(
            ReviewAddress("0.0.0.0:18083")!.phoneURLs(port: 18083, interfaces: interfaces)
                == ["http://192.168.4.1:18083", "http://10.0.0.7:18083"])
        #expect(
            ReviewAddress("[::]:18083")!.phoneURLs(port: 18083, interfaces: interfaces)
                == ["http://192.168.4.1:18083", "http://10.0.0.7:18083", "http://[fd00::7]:18083"])
        #expect(ReviewAddress("0.0.0.0:0")!.phoneURLs(port: 40000, interfaces: Array(interfaces.prefix(1))) == ["http://127.0.0.1:40000"])
        #expect(ReviewAddress("192.168.4.1:18083")!.phoneURLs(port: 18083, interfaces: interfaces) == ["http://192.168.4.1:18083"])
        // getifaddrs itself: every Linux machine has its loopback address.
        #expect(InterfaceAddress.current().contains { $0.isLoopback && $0.address == "127.0.0.1" })
    }

    /// A served page refuses another `Host` (421) before anything behind it runs: a
    /// rebinding page's wrong codes do not count against the rider's 5 tries.
    @Test(.timeLimitOnceRunning(.minutes(2))) func aForeignHostIsRefusedAndBurnsNoTry() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        let code = try store.issuePairingCode()
        let wrong = code.code == "000000" ? "000001" : "000000"
        let (ports, sink) = AsyncStream.makeStream(of: Int.self)
        let app = try buildReviewApplication(
            store: store, address: ReviewAddress(host: "127.0.0.1", port: 0),
            publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true),
            logger: Logger(label: "review-test")
        ) { sink.yield($0) }
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "review-test"))
        let server = Task { try await group.run() }
        defer { server.cancel() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        func request(_ host: String?, _ text: String) throws -> String {
            let c = try RawConnection(port: port, timeout: 30)  // the full suite loads 2 cores
            try c.send(text.replacingOccurrences(of: "HOST\r\n", with: host.map { "Host: \($0)\r\n" } ?? ""))
            return c.readResponse()
        }
        let body = "code=\(wrong)"
        let post =
            "POST /pair HTTP/1.1\r\nHOST\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        for _ in 0..<(Store.pairingAttempts + 1) {
            let answer = try request("evil.example:\(port)", post)
            #expect(answer.hasPrefix("HTTP/1.1 421"), "\(answer)")
            #expect(answer.contains("is not one of its addresses"))
        }
        let noHost = try request(nil, "GET /pair HTTP/1.0\r\nHOST\r\n\r\n")
        #expect(noHost.contains(" 400 ") && noHost.contains("names no host"), "\(noHost)")
        #expect(try request("127.0.0.1:\(port)", "GET /pair HTTP/1.1\r\nHOST\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        #expect(try request("localhost:\(port)", "GET /pair HTTP/1.1\r\nHOST\r\nConnection: close\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        // Six refused posts later the code still pairs: none of them counted.
        try store.redeemPairingCode(code.code)
        await group.triggerGracefulShutdown()
        _ = try? await server.value
    }

    /// A port in use was "bind(descriptor:ptr:bytes:): Address already in use (errno: 98)".
    @Test(.timeLimitOnceRunning(.minutes(1))) func aPortInUseIsOneClearSentence() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir, trips: 1)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        // 127.0.0.2, not .1: the other tests' servers bind ports `WebDriver.freePort` found
        // free on 127.0.0.1, and holding one of those here would make theirs "in use".
        address.sin_addr.s_addr = inet_addr("127.0.0.2")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        #expect(bound && listen(fd, 1) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let taken = ReviewAddress(host: "127.0.0.2", port: port)
        let service = ReviewService(
            store: store, address: taken, publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true),
            logger: Logger(label: "review-test"))
        await #expect(throws: ReviewStartError.portInUse(taken)) { try await service.run() }
        #expect(
            ReviewStartError.portInUse(ReviewAddress("0.0.0.0:18083")!).description
                == "port 18083 is already in use on 0.0.0.0; pick another with --listen or review.listen")
    }
}

extension RawConnection {
    /// One whole response, its head and its Content-Length body, without waiting for the
    /// server to close the connection (an idle keep-alive would cost its 30 s timeout).
    func readResponse() -> String {
        var data = Data()
        var byte: UInt8 = 0
        while !data.suffix(4).elementsEqual("\r\n\r\n".utf8) {
            guard recv(fd, &byte, 1, 0) == 1 else { return String(decoding: data, as: UTF8.self) }
            data.append(byte)
        }
        let head = String(decoding: data, as: UTF8.self).lowercased()
        let length =
            head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
        var body = [UInt8](repeating: 0, count: 4096)
        var got = 0
        while got < length {
            let n = body.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, min($0.count, length - got), 0) }
            guard n > 0 else { break }
            data.append(contentsOf: body[0..<n])
            got += n
        }
        return String(decoding: data, as: UTF8.self)
    }
}

@Suite(.ownThreads) struct ReviewTrapsTests {
    func post(_ client: some TestClientProtocol, _ p: Paired, _ uri: String, _ form: String = "") async throws -> (
        HTTPResponse.Status, String, String?
    ) {
        try await client.execute(
            uri: uri, method: .post, headers: p.headers,
            body: ByteBuffer(string: (["csrf=\(p.csrf)"] + (form.isEmpty ? [] : [form])).joined(separator: "&"))
        ) {
            ($0.status, String(buffer: $0.body), $0.headers[.location])
        }
    }

    func get(_ client: some TestClientProtocol, _ p: Paired, _ uri: String) async throws -> (HTTPResponse.Status, String) {
        try await client.execute(uri: uri, method: .get, headers: p.headers) { ($0.status, String(buffer: $0.body)) }
    }

    /// `#N` is documented; in a URL it travels as `%23N` and used to be taken literally.
    @Test func anObstacleByItsNumberInAURL() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        let first = try #require(try await store.draft(id).obstacles.first { $0.reviewRank == 2 })
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            let (status, _, _) = try await post(client, p, "/drafts/\(id)/obstacles/%232/drop")
            #expect(status == .seeOther)
        }
        #expect(try await store.draft(id).obstacles.first { $0.id == first.id }?.dropped == true)
    }

    /// A tap on the draft's map opens a candidate; adding is a mode that shows the spot before it adds.
    @Test func tappingTheMapAddsNothingAndAddModeAsksFirst() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        let before = try await store.draft(id)
        let map = DraftMap(before, shown: before.obstacles.filter { !$0.heldBack }).projection
        #expect(map.width <= 328)  // fits a 360 px screen with the page's padding
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            var (status, html) = try await get(client, p, "/drafts/\(id)")
            #expect(!html.contains(#"type="image""#))  // the draft page's map submits nothing
            #expect(html.contains(##"<a href="#cand-1" id="dot-1">"##) && html.contains(#"id="cand-1""#))
            #expect(html.contains(#"href="/drafts/\#(id)/add""#))
            (status, html) = try await get(client, p, "/drafts/\(id)/add")
            #expect(status == .ok && html.contains(#"<input type="image""#) && !html.contains("add-confirm"))
            let x = Int(map.width / 2), y = Int(map.height / 2) + 3
            (status, html) = try await get(client, p, "/drafts/\(id)/add?kind=irregularity&map.x=\(x)&map.y=\(y)")
            #expect(status == .ok && html.contains(#"id="add-confirm">Add an irregularity here<"#))
            #expect(html.contains("map.svg?spot=") && html.contains(#"name="map.x" value="\#(x)""#))
            (status, html) = try await get(client, p, "/drafts/\(id)/add?kind=bump&map.x=\(x)&map.y=2")
            #expect(html.contains("That tap is off the path") && !html.contains("add-confirm"))
            #expect(try await store.draft(id) == before)  // looking and picking changed nothing
            let svg = try await client.execute(uri: "/drafts/\(id)/map.svg?spot=10,20", method: .get, headers: p.headers) {
                String(buffer: $0.body)
            }
            #expect(svg.contains(#"id="spot" cx="10.0" cy="20.0""#))
            let (added, _, location) = try await post(client, p, "/drafts/\(id)/obstacles", "kind=irregularity&map.x=\(x)&map.y=\(y)")
            #expect(added == .seeOther && location == "/drafts/\(id)?done=added")
        }
        #expect(try await store.draft(id).obstacles.filter { $0.origin == "rider" }.map(\.kind) == [.irregularity])
    }

    /// Reject asks once more, and a rejection can be taken back.
    @Test func rejectAsksFirstAndCanBeUndone() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            var (status, html) = try await get(client, p, "/drafts/\(id)")
            #expect(!html.contains("/reject\" ") && html.contains(#"<a class="btn danger" id="reject" href="/drafts/\#(id)/reject">"#))
            (status, html) = try await get(client, p, "/drafts/\(id)/reject")
            #expect(status == .ok && html.contains("Reject this ride?") && html.contains(#"id="reject-confirm""#))
            #expect(try await store.draft(id).state == .pending)  // asking changed nothing
            var location: String?
            (status, _, location) = try await post(client, p, "/drafts/\(id)/reject")
            #expect(status == .seeOther && location == "/drafts/\(id)?done=rejected")
            (status, html) = try await get(client, p, "/drafts/\(id)?done=rejected")
            #expect(
                html.contains("Undo reject") && html.contains(#"action="/drafts/\#(id)/reopen""#)
                    && html.contains(#"<b id="state">rejected</b>"#))
            (status, html) = try await get(client, p, "/drafts/\(id)/reject")
            #expect(status == .conflict)
            (status, _, location) = try await post(client, p, "/drafts/\(id)/reopen")
            #expect(status == .seeOther && location == "/drafts/\(id)?done=reopened")
            #expect(try await store.draft(id).state == .pending)
            (status, html, _) = try await post(client, p, "/drafts/\(id)/reopen")
            #expect(status == .conflict && html.contains("is to review already; nothing to change"))
        }
    }

    /// The confirm notice says where the draft goes, by the CLI's rule; the page shows the switch.
    @Test func confirmSaysWhatHappens() async throws {
        let cases: [(PublishingSetup, Bool, String, String)] = [
            (
                PublishingSetup(hubConfigured: false, fileAllowsTrips: true), false, "confirmed-no-hub",
                "Confirmed: the draft is frozen and stays on this device: no hub is configured (sync.hub_url)."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: true), false, "confirmed-sharing-off",
                "Confirmed: the draft is frozen and stays on this device: trip sharing is off — `bikepathd sync consent trips on` sends it."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: false), false, "confirmed-not-allowed",
                "Confirmed: the draft is frozen and stays on this device: privacy.share_trips is false in the configuration file."
            ),
            (
                PublishingSetup(hubConfigured: true, fileAllowsTrips: true), true, "confirmed",
                "Confirmed: the draft is frozen and queued; the next sync publishes it to the hub."
            ),
        ]
        for (setup, sharing, key, text) in cases {
            let dir = try TempDir()
            defer { dir.cleanup() }
            let store = try storeWithRides(dir)
            let id = try await store.listDrafts()[0].id
            try await reviewApp(store, publishing: setup).test(.router) { client in
                let p = try await pair(client, store: store, draftID: id)
                var (_, html) = try await get(client, p, "/drafts/\(id)")
                #expect(html.contains(#"id="sharing""#))
                #expect(html.contains(#"id="sharing-on""#) == setup.fileAllowsTrips, "\(key)")
                if sharing {
                    #expect(html.contains("Trip sharing is off: a confirmed ride is held on this device until you turn it on."))
                    let (status, _, location) = try await post(client, p, "/drafts/\(id)/sharing", "trips=on")
                    #expect(status == .seeOther && location == "/drafts/\(id)?done=sharing-on")
                    #expect(try await store.consent().tripsAndDrafts)
                    (_, html) = try await get(client, p, "/drafts/\(id)")
                    #expect(html.contains("Trip sharing is on and a hub is set") && html.contains(#"id="sharing-off""#))
                }
                let (status, _, location) = try await post(client, p, "/drafts/\(id)/confirm")
                #expect(status == .seeOther && location == "/drafts/\(id)?done=\(key)")
                (_, html) = try await get(client, p, location ?? "")
                #expect(html.contains(text.replacingOccurrences(of: "`", with: "&#96;")) || html.contains(text), "\(key): \(html)")
                #expect(!html.contains("queued for publishing"))
            }
            // The CLI's rule and the page's are one: ConsentPolicy calls the same PublishingSetup.hold.
            #expect(try await store.confirmedDraftHold(setup).map { ReviewViews.confirmedNotice($0) } ?? "confirmed" == key)
        }
    }

    @Test func sharingCannotBeTurnedOnAgainstTheFile() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        try await reviewApp(store, publishing: PublishingSetup(hubConfigured: true, fileAllowsTrips: false)).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            let (status, html, _) = try await post(client, p, "/drafts/\(id)/sharing", "trips=on")
            #expect(status == .badRequest && html.contains("privacy.share_trips is false"))
        }
        #expect(try await !store.consent().tripsAndDrafts)
    }

    /// The words: "needs maintenance", edits in words, plurals, "an".
    @Test func thePageSpeaksToTheRider() async throws {
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        let d0 = try await store.draft(id)
        let shown = d0.obstacles.filter { !$0.heldBack }
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            _ = try await post(client, p, "/drafts/\(id)/obstacles/\(shown[0].id)/drop")
            _ = try await post(
                client, p, "/drafts/\(id)/obstacles/\(shown[1].id)/kind", "kind=\(shown[1].kind == .debris ? "bump" : "debris")")
            _ = try await post(client, p, "/drafts/\(id)/path-status", "status=requiresMaintenance")
            let (_, html) = try await get(client, p, "/drafts/\(id)")
            #expect(
                !html.contains(">requiresMaintenance<")
                    && html.contains(#"<option value="requiresMaintenance" selected>needs maintenance</option>"#))
            #expect(html.contains("path <b id=\"path-word\">needs maintenance</b>"))
            #expect(html.contains("<li>Dropped candidate 1.</li>"))
            #expect(html.contains("<li>Changed candidate 2 from \(shown[1].kind.rawValue) to"))
            #expect(html.contains("<li>Rated the path needs maintenance (was not rated).</li>"))
            let edits = String(html[html.range(of: #"<ol id="edits">"#)!.lowerBound...])
            #expect(!edits.contains(shown[0].id) && !edits.contains("{"))  // no JSON, no UUIDs
            #expect(!html.contains("candidate(s)") && !html.contains("0 weaker"))
            let (status, bad, _) = try await post(client, p, "/drafts/\(id)/path-status", "status=awful")
            #expect(status == .badRequest && bad.contains("awful is not a path status"))
        }
        let sharing = SharingView(text: "", canTurnOn: false, canTurnOff: false)
        var d = d0
        for i in d.obstacles.indices { d.obstacles[i].heldBack = false }
        #expect(ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack == nil)
        d.obstacles[d.obstacles.count - 1].heldBack = true
        #expect(
            ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack
                == "1 weaker candidate was not asked about; it still counts for road quality.")
        d.obstacles[d.obstacles.count - 2].heldBack = true
        #expect(
            ReviewViews.draft(d, csrf: "", message: nil, evidence: [:], sharing: sharing).heldBack
                == "2 weaker candidates were not asked about; they still count for road quality.")
    }
}

/// Street context (issue 22): tiles from a URL template the phone loads, or an MBTiles
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
        let dir = try TempDir()
        defer { dir.cleanup() }
        let store = try storeWithRides(dir)
        let id = try await store.listDrafts()[0].id
        try await reviewApp(store).test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
            try await client.execute(uri: "/drafts/\(id)", method: .get, headers: p.headers) { response in
                let html = String(buffer: response.body)
                #expect(html.contains("no street map: the path alone, to scale") && !html.contains(#"class="tile""#))
                #expect(html.contains(##"fill="#f6f6f0""##))
            }
        }
        let street = StreetMap.tiles(
            template: "https://tiles.example/{z}/{x}/{y}.png", attribution: "© OpenStreetMap contributors", maxZoom: 19)
        let app = Application(
            router: try buildReviewRouter(
                store: store, sessions: ReviewSessions(),
                hosts: ReviewHosts(listen: ReviewAddress(host: "127.0.0.1", port: 8080)),
                publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true), streetMap: street))
        try await app.test(.router) { client in
            let p = try await pair(client, store: store, draftID: id)
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
                publishing: PublishingSetup(hubConfigured: false, fileAllowsTrips: true),
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
