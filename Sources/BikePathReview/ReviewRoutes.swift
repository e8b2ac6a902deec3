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
    /// The first distance milestone (for "the first comes at …").
    let firstMilestoneMetres: Double

    /// A tap further than this from the drawn path (canvas px, about a fingertip) is not on it.
    static let tapTolerance = 24.0
    /// Forms are a few short fields; anything longer is refused unread.
    static let maxFormBytes = 16 * 1024

    func add(to router: Router<BasicRequestContext>) {
        router.get("/pair") { _, _ in try self.page("pair", SimplePage(title: "Pair this phone", message: nil)) }
        router.post("/pair") { request, _ in try await self.pair(request) }
        router.get("/") { request, _ in
            try await self.withSession(request) { _ in
                let rows = try self.store.listDrafts().enumerated().map { ReviewViews.row($1, number: $0 + 1) }
                return try self.page("list", ListPage(message: nil, drafts: rows))
            }
        }
        router.get("/trips") { request, _ in
            try await self.withSession(request) { _ in
                let page = ReviewViews.trips(try self.store.statistics(), drafts: try self.store.listDrafts(), firstStep: self.firstMilestoneMetres)
                return try self.page("trips", page)
            }
        }
        router.get("/drafts/:draft") { request, context in
            try await self.withSession(request) { session in
                let id = try self.store.resolveDraftID(try context.parameters.require("draft"))
                return try self.draftPage(id, session: session, message: Self.notice(request))
            }
        }
        router.get("/drafts/:draft/map.svg") { request, context in
            try await self.withSession(request) { _ in
                let d = try self.store.draft(try self.store.resolveDraftID(try context.parameters.require("draft")))
                return Self.response(.ok, type: "image/svg+xml", DraftMap(d, shown: ReviewViews.shown(d)).svg)
            }
        }
        action(router, "/drafts/:draft/confirm", done: "confirmed") { id, _, _ in _ = try self.store.confirmDraft(id) }
        action(router, "/drafts/:draft/reject", done: "rejected") { id, _, _ in try self.store.rejectDraft(id) }
        action(router, "/drafts/:draft/undo", done: "undone") { id, _, _ in try self.store.undoLastEdit(id) }
        action(router, "/drafts/:draft/path-status", done: "rated") { id, form, _ in
            try self.store.editDraft(id, .setPathStatus(try Self.choice(form["status"], "path status")))
        }
        action(router, "/drafts/:draft/obstacles/:obstacle/drop", done: "dropped") { id, _, context in
            let obstacle = try self.store.resolveObstacleID(try context.parameters.require("obstacle"), inDraft: id)
            try self.store.editDraft(id, .dropObstacle(obstacleID: obstacle))
        }
        action(router, "/drafts/:draft/obstacles/:obstacle/kind", done: "changed") { id, form, context in
            let obstacle = try self.store.resolveObstacleID(try context.parameters.require("obstacle"), inDraft: id)
            try self.store.editDraft(id, .setObstacleKind(obstacleID: obstacle, try Self.choice(form["kind"], "obstacle kind")))
        }
        action(router, "/drafts/:draft/obstacles", done: "added") { id, form, _ in
            let kind: ObstacleKind = try Self.choice(form["kind"], "obstacle kind")
            guard let x = form["map.x"].flatMap(Double.init), let y = form["map.y"].flatMap(Double.init) else {
                throw StoreError.invalidEdit("tap the map where the obstacle is")
            }
            let d = try self.store.draft(id)
            let map = DraftMap(d, shown: ReviewViews.shown(d)).projection
            guard let spot = map.nearestOnPath(d.path, x: x, y: y), spot.distance <= Self.tapTolerance else {
                throw StoreError.invalidEdit("that tap is off the path: tap on the line where the obstacle is")
            }
            try self.store.editDraft(id, .addObstacle(kind, time: nil, coordinate: spot.coordinate))
        }
    }

    // MARK: - Sessions and CSRF

    private func session(_ request: Request) async -> ReviewSession? {
        await sessions.session(token: request.cookies[ReviewSessions.cookieName]?.value)
    }

    /// Pages need a paired phone; without one they send it to /pair.
    private func withSession(_ request: Request, _ body: (ReviewSession) throws -> Response) async throws -> Response {
        guard let session = await session(request) else {
            return Response(status: .seeOther, headers: [.location: "/pair"])
        }
        do {
            return try body(session)
        } catch let error as StoreError {
            return try page("problem", SimplePage(title: Self.statusTitle(error), message: Message(text: error.description, isError: true)),
                            status: Self.status(error))
        }
    }

    private func pair(_ request: Request) async throws -> Response {
        let form = try await Self.form(request)
        do {
            try store.redeemPairingCode(form["code"] ?? "")
        } catch let error as StoreError {
            return try page("pair", SimplePage(title: "Pair this phone", message: Message(text: error.description, isError: true)),
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
    private func action(_ router: Router<BasicRequestContext>, _ path: RouterPath, done: String,
                        _ apply: @escaping @Sendable (String, [String: String], BasicRequestContext) throws -> Void) {
        router.post(path) { request, context in
            let form = try await Self.form(request)
            guard let session = await self.session(request) else {
                return try self.page("problem", SimplePage(title: "Not paired", message: Message(
                    text: "this phone is not paired: nothing was changed — pair it first", isError: true)), status: .forbidden)
            }
            guard ReviewSessions.csrfMatches(session, form["csrf"]) else {
                return try self.page("problem", SimplePage(title: "Refused", message: Message(
                    text: "the form's security token is missing or stale: nothing was changed — reload the page and try again", isError: true)),
                    status: .forbidden)
            }
            let id: String
            do {
                id = try self.store.resolveDraftID(try context.parameters.require("draft"))
            } catch let error as StoreError {
                return try self.page("problem", SimplePage(title: Self.statusTitle(error), message: Message(text: error.description, isError: true)),
                                     status: Self.status(error))
            }
            do {
                try apply(id, form, context)
            } catch let error as StoreError {
                return try self.draftPage(id, session: session, message: Message(text: error.description, isError: true), status: Self.status(error))
            }
            return Response(status: .seeOther, headers: [.location: "/drafts/\(id)?done=\(done)"])
        }
    }

    // MARK: - Rendering

    private func draftPage(_ id: String, session: ReviewSession, message: Message?, status: HTTPResponse.Status = .ok) throws -> Response {
        let d = try store.draft(id)
        var evidence: [String: CandidateEvidence] = [:]
        for eventID in ReviewViews.shown(d).compactMap(\.eventID) { evidence[eventID] = try store.candidateEvidence(eventID) }
        return try page("draft", ReviewViews.draft(d, csrf: session.csrf, message: message, evidence: evidence), status: status)
    }

    private func page(_ template: String, _ view: Any, status: HTTPResponse.Status = .ok) throws -> Response {
        guard let html = library.render(view, withTemplate: template) else { throw HTTPError(.internalServerError) }
        return Self.response(status, type: "text/html; charset=utf-8", html)
    }

    static func response(_ status: HTTPResponse.Status, type: String, _ text: String) -> Response {
        Response(status: status, headers: [.contentType: type, .cacheControl: "no-store"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The confirmation after a redirect (`?done=`), from a fixed list: the URL cannot put words on the page.
    static func notice(_ request: Request) -> Message? {
        let texts = ["confirmed": "Confirmed: the draft is frozen and queued for publishing.", "rejected": "Rejected: it will never be sent.",
                     "undone": "The last edit was undone.", "rated": "Path rated.", "dropped": "Candidate dropped.",
                     "changed": "Kind changed.", "added": "Obstacle added."]
        return request.uri.queryParameters["done"].flatMap { texts[String($0)] }.map { Message(text: $0, isError: false) }
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
            throw StoreError.invalidEdit("\(value ?? "nothing") is not a \(what) (\(T.allCases.map(\.rawValue).joined(separator: ", ")))")
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
