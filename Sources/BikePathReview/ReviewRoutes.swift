import BikePathCore
import BikePathStore
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// The review page's routes (docs/review.md). Every change goes through the
/// store's draft operations, the same ones `bikepathd drafts` calls.
struct ReviewRoutes: Sendable {
    let store: Store
    let sessions: ReviewSessions
    let library: MustacheLibrary
    /// What of the configuration decides whether a confirmed draft leaves the device.
    let publishing: PublishingSetup
    /// The street map under the path, if any.
    let streetMap: StreetMap
    /// The first distance milestone (for "the first comes at …").
    let firstMilestoneMetres: Double
    /// Wakes this process's sync loop (the daemon's, when `run` serves the page): a ride the rider
    /// confirms goes out within seconds, not after `sync.interval_s`. nil: no sync runs beside the page.
    let syncNow: (@Sendable () -> Void)?

    /// A tap further than this from the drawn path (canvas px, about a fingertip) is not on it.
    static let tapTolerance = 24.0
    /// Forms are a few short fields; anything longer is refused unread.
    static let maxFormBytes = 16 * 1024

    func add(to router: Router<BasicRequestContext>) {
        // The page's style, for every page, the pairing one included: no session needed. Fetched
        // again with each page (no-cache, 2.0 KB) so that an upgraded bikepathd is never drawn
        // with the old rules.
        router.get(RouterPath(ReviewTemplates.stylesheetPath)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(byteBuffer: ByteBuffer(string: ReviewTemplates.stylesheet)))
        }
        router.get("/pair") { _, _ in try self.page("pair", SimplePage(title: "Pair this phone", message: nil)) }
        router.post("/pair") { request, _ in try await self.pair(request) }
        router.get("/") { request, _ in
            try await self.withSession(request) { _ in
                let rows = try await self.store.listDrafts().enumerated().map { ReviewViews.row($1, number: $0 + 1) }
                return try self.page("list", ListPage(message: nil, drafts: rows))
            }
        }
        router.get("/trips") { request, _ in
            try await self.withSession(request) { _ in
                let page = ReviewViews.trips(
                    try await self.store.statistics(), drafts: try await self.store.listDrafts(), firstStep: self.firstMilestoneMetres,
                    outbox: try await self.store.outboxCounts())
                return try self.page("trips", page)
            }
        }
        router.get("/drafts/:draft") { request, context in
            try await self.withSession(request) { session in
                let id = try await self.store.resolveDraftID(try Self.parameter(context, "draft"))
                return try await self.draftPage(id, session: session, message: Self.notice(request, self.publishing))
            }
        }
        router.get("/drafts/:draft/map.svg") { request, context in
            try await self.withSession(request) { _ in
                let d = try await self.store.draft(try await self.store.resolveDraftID(try Self.parameter(context, "draft")))
                let spot = request.uri.queryParameters["spot"].flatMap { Self.point(String($0)) }
                return Self.response(
                    .ok, type: "image/svg+xml",
                    DraftMap(d, shown: ReviewViews.shown(d)).svg(spot: spot, background: self.streetMap == .none))
            }
        }
        // Add mode (a tap that added an obstacle at once made a rider tapping a dot to look
        // at it add a duplicate). GET only shows: pick a kind, tap
        // the line, see the spot ringed, then add it with the one POST below.
        router.get("/drafts/:draft/add") { request, context in
            try await self.withSession(request) { session in
                let id = try await self.store.resolveDraftID(try Self.parameter(context, "draft"))
                let d = try await self.store.draft(id)
                guard d.state == .pending else { throw StoreError.draftNotEditable(id, state: d.state) }
                let query = request.uri.queryParameters
                let kind = query["kind"].flatMap { ObstacleKind(rawValue: String($0)) } ?? .pothole
                let tap = query["map.x"].flatMap { Double(String($0)) }.flatMap { x in
                    query["map.y"].flatMap { Double(String($0)) }.map { (x, $0) }
                }
                var spot: (x: Double, y: Double, along: String)?
                var message: Message?
                if let tap {
                    let map = DraftMap(d, shown: ReviewViews.shown(d)).projection
                    if let hit = map.nearestOnPath(d.path, x: tap.0, y: tap.1), hit.distance <= Self.tapTolerance {
                        let q = map.point(hit.coordinate)
                        spot = (q.x, q.y, d.distanceAlongPath(to: hit.coordinate).map(ReviewFormat.distance) ?? "–")
                    } else {
                        message = Message(text: "That tap is off the path: tap on the line where the obstacle is.", isError: true)
                    }
                }
                return try self.page(
                    "add",
                    ReviewViews.add(
                        d, csrf: session.csrf, kind: kind, tap: tap, spot: spot, message: message,
                        street: self.streetMap))
            }
        }
        // The on-device street map (review.mbtiles): tiles from the file, so nothing leaves the device.
        if case .mbtiles(let file, _) = streetMap {
            router.get("/tiles/:z/:x/:y") { request, context in
                try await self.withSession(request) { _ in
                    guard let z = Int(try Self.parameter(context, "z")), let x = Int(try Self.parameter(context, "x")),
                        let y = Int(try Self.parameter(context, "y")),
                        let data = try? await file.tile(z: z, x: x, y: y)
                    else { return Response(status: .notFound) }
                    return Response(
                        status: .ok, headers: [.contentType: file.contentType, .cacheControl: "private, max-age=86400"],
                        body: .init(byteBuffer: ByteBuffer(bytes: data)))
                }
            }
        }
        // Reject asks once more (no JavaScript: a page of its own); the POST rejects.
        router.get("/drafts/:draft/reject") { request, context in
            try await self.withSession(request) { session in
                let id = try await self.store.resolveDraftID(try Self.parameter(context, "draft"))
                let d = try await self.store.draft(id)
                guard d.state == .pending else { throw StoreError.illegalTransition(draft: id, from: d.state, to: .rejected) }
                return try self.page("reject", ReviewViews.rejectQuestion(d, csrf: session.csrf))
            }
        }
        action(router, "/drafts/:draft/confirm") { id, _, _ in
            try self.store.confirmDraft(id)
            // What happens next, by the CLI's own rule (PublishingSetup): published, or why not;
            // when it may leave and a sync loop runs here, it leaves now.
            let hold = try await self.store.confirmedDraftHold(self.publishing)
            if hold == nil, let syncNow = self.syncNow {
                syncNow()
                return ReviewViews.sendingNotice
            }
            return ReviewViews.confirmedNotice(hold)
        }
        action(router, "/drafts/:draft/reject") { id, _, _ in
            try self.store.rejectDraft(id); return "rejected"
        }
        action(router, "/drafts/:draft/reopen") { id, _, _ in
            try self.store.reopenDraft(id); return "reopened"
        }
        action(router, "/drafts/:draft/undo") { id, _, _ in
            try self.store.undoLastEdit(id); return "undone"
        }
        action(router, "/drafts/:draft/sharing") { _, form, _ in
            let on = form["trips"] == "on"
            if on, !self.publishing.fileAllowsTrips {
                throw StoreError.invalidEdit(PublishingSetup.Hold.forbiddenByFile(key: self.publishing.keys.shareTrips).description)
            }
            try self.store.setConsent(.tripsAndDrafts, on)
            return on ? "sharing-on" : "sharing-off"
        }
        action(router, "/drafts/:draft/path-status") { id, form, _ in
            try self.store.editDraft(id, .setPathStatus(try Self.choice(form["status"], "path status")))
            return "rated"
        }
        action(router, "/drafts/:draft/obstacles/:obstacle/drop") { id, _, context in
            let obstacle = try await self.store.resolveObstacleID(try Self.parameter(context, "obstacle"), inDraft: id)
            try self.store.editDraft(id, .dropObstacle(obstacleID: obstacle))
            return "dropped"
        }
        action(router, "/drafts/:draft/obstacles/:obstacle/kind") { id, form, context in
            let obstacle = try await self.store.resolveObstacleID(try Self.parameter(context, "obstacle"), inDraft: id)
            try self.store.editDraft(id, .setObstacleKind(obstacleID: obstacle, try Self.choice(form["kind"], "obstacle kind")))
            return "changed"
        }
        action(router, "/drafts/:draft/obstacles") { id, form, _ in
            let kind: ObstacleKind = try Self.choice(form["kind"], "obstacle kind")
            guard let x = form["map.x"].flatMap(Double.init), let y = form["map.y"].flatMap(Double.init) else {
                throw StoreError.invalidEdit("tap the map where the obstacle is")
            }
            let d = try await self.store.draft(id)
            let map = DraftMap(d, shown: ReviewViews.shown(d)).projection
            guard let spot = map.nearestOnPath(d.path, x: x, y: y), spot.distance <= Self.tapTolerance else {
                throw StoreError.invalidEdit("that tap is off the path: tap on the line where the obstacle is")
            }
            try self.store.editDraft(id, .addObstacle(kind, time: nil, coordinate: spot.coordinate))
            return "added"
        }
    }

    /// A path parameter, percent-decoded: the router hands `%231` over as it came, and
    /// the documented obstacle reference `#N` can only travel in a URL as `%23N`.
    static func parameter(_ context: BasicRequestContext, _ name: String) throws -> String {
        let raw = try context.parameters.require(name)
        return raw.removingPercentEncoding ?? raw
    }

    /// `X,Y` in canvas units, or nil.
    static func point(_ text: String) -> (x: Double, y: Double)? {
        let parts = text.split(separator: ",").compactMap { Double(String($0)) }
        guard parts.count == 2, parts.allSatisfy(\.isFinite) else { return nil }
        return (parts[0], parts[1])
    }

    // MARK: - Sessions and CSRF

    private func session(_ request: Request) async -> ReviewSession? {
        await sessions.session(token: request.cookies[ReviewSessions.cookieName]?.value)
    }

    /// Pages need a paired phone; without one they send it to /pair.
    private func withSession(_ request: Request, _ body: (ReviewSession) async throws -> Response) async throws -> Response {
        guard let session = await session(request) else {
            return Response(status: .seeOther, headers: [.location: "/pair"])
        }
        do {
            return try await body(session)
        } catch let error as StoreError {
            return try page(
                "problem", SimplePage(title: Self.statusTitle(error), message: Message(text: error.description, isError: true)),
                status: Self.status(error))
        }
    }

    private func pair(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        do {
            try store.redeemPairingCode(form["code"] ?? "")
        } catch let error as StoreError {
            return try page(
                "pair", SimplePage(title: "Pair this phone", message: Message(text: error.description, isError: true)),
                status: .forbidden)
        }
        let session = await sessions.open()
        var response = Response(status: .seeOther, headers: [.location: "/"])
        response.setCookie(Cookie(name: ReviewSessions.cookieName, value: session.token, path: "/", httpOnly: true, sameSite: .strict))
        return response
    }

    /// A change: needs the session and its CSRF token; on success back to the
    /// draft (303, so a reload does not repeat it), on a refusal the draft page
    /// with the store's reason.
    /// `apply` returns the notice to show (a key of `notices`).
    private func action(
        _ router: Router<BasicRequestContext>, _ path: RouterPath,
        _ apply: @escaping @Sendable (String, [String: String], BasicRequestContext) async throws -> String
    ) {
        router.post(path) { request, context in
            let form = try await Self.form(request)
            guard let session = await self.session(request) else {
                return try self.page(
                    "problem",
                    SimplePage(
                        title: "Not paired",
                        message: Message(
                            text: "this phone is not paired: nothing was changed — pair it first", isError: true)), status: .forbidden)
            }
            guard ReviewSessions.csrfMatches(session, form["csrf"]) else {
                return try self.page(
                    "problem",
                    SimplePage(
                        title: "Refused",
                        message: Message(
                            text: "the form's security token is missing or stale: nothing was changed — reload the page and try again",
                            isError: true)),
                    status: .forbidden)
            }
            let id: String
            do {
                id = try await self.store.resolveDraftID(try Self.parameter(context, "draft"))
            } catch let error as StoreError {
                return try self.page(
                    "problem", SimplePage(title: Self.statusTitle(error), message: Message(text: error.description, isError: true)),
                    status: Self.status(error))
            }
            let done: String
            do {
                done = try await apply(id, form, context)
            } catch let error as StoreError {
                return try await self.draftPage(
                    id, session: session, message: Message(text: error.description, isError: true), status: Self.status(error))
            }
            return Response(status: .seeOther, headers: [.location: "/drafts/\(id)?done=\(done)"])
        }
    }

    // MARK: - Rendering

    private func draftPage(
        _ id: String, session: ReviewSession, message: Message?, status: HTTPResponse.Status = .ok
    ) async throws -> Response {
        let d = try await store.draft(id)
        var evidence: [String: CandidateEvidence] = [:]
        for eventID in ReviewViews.shown(d).compactMap(\.eventID) { evidence[eventID] = try await store.candidateEvidence(eventID) }
        let sharing = ReviewViews.sharing(publishing, consent: try await store.consent())
        return try page(
            "draft",
            ReviewViews.draft(
                d, csrf: session.csrf, message: message, evidence: evidence, sharing: sharing,
                street: streetMap), status: status)
    }

    private func page(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let html = library.render(view, withTemplate: template) else { throw HTTPError(.internalServerError) }
        return Self.response(status, type: "text/html; charset=utf-8", html)
    }

    static func response(_ status: HTTPResponse.Status, type: String, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: type, .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The confirmation after a redirect (`?done=`), from a fixed list: the URL cannot put words on the page.
    static func notice(_ request: Request, _ publishing: PublishingSetup) -> Message? {
        request.uri.queryParameters["done"].flatMap { ReviewViews.notice(String($0), publishing) }.map { Message(text: $0, isError: false) }
    }

    // MARK: - Input

    static func form(_ request: Request) async throws -> [String: String] {
        let body = try await request.body.collect(upTo: maxFormBytes)
        let text = String(buffer: body)
        guard !text.isEmpty else { return [:] }
        do {
            return try URLEncodedFormDecoder().decode([String: String].self, from: text)
        } catch {
            throw HTTPError(.badRequest, message: "the form could not be read")
        }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ value: String?, _ what: String) throws -> T where T.RawValue == String {
        guard let value, let choice = T(rawValue: value) else {
            // "an obstacle kind", "a path status": the article follows the word.
            let article = what.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            throw StoreError.invalidEdit(
                "\(value ?? "nothing") is not \(article) \(what) (\(T.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        return choice
    }

    static func status(_ error: StoreError) -> HTTPResponse.Status {
        switch error {
        case .noSuchDraft, .noSuchObstacle, .noSuchDraftNumber, .noSuchTrip: .notFound
        case .illegalTransition, .draftNotEditable: .conflict
        case .invalidEdit, .ambiguousReference: .badRequest
        default: .internalServerError
        }
    }

    static func statusTitle(_ error: StoreError) -> String {
        switch status(error) {
        case .notFound: "Not found"
        case .conflict: "Not possible now"
        case .badRequest: "Not accepted"
        default: "Store problem"
        }
    }
}
