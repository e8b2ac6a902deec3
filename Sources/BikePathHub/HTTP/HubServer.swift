import BikePathAPI
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Request context that keeps the connection, so that the test-only
/// "commit then drop the connection" fault can close it.
/// A request's context: Hummingbird's, its channel, and what the routes learnt for its
/// log event. Public for middleware a caller adds (`Hub.buildApplication`'s `middleware`).
public struct HubContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// What the routes learnt about this request, for its log event.
    let facts = RequestFacts()

    /// Wire size limit; the inflated one is `HubLimits.maxInflated`.
    public var maxUploadSize: Int { HubLimits.maxBody }
}

/// Thrown after the connection was deliberately closed (test-only fault).
/// Thrown by a middleware that closed the connection on purpose: no answer follows.
public struct ConnectionDropped: Error {
    public init() {}
}

/// The routes of docs/api.yaml. A record request goes: the caller's middleware, token, rate
/// limit, Content-Encoding and Content-Type, body read within `HubLimits.maxBody`, then
/// inflated, shape-checked, decoded and validated on `DecodeWorkers`, charged to the
/// device's rate limit by its number of records, then stored (one transaction).
struct HubServer {
    let store: any HubStore
    let middleware: (any RouterMiddleware<HubContext>)?
    let workers: DecodeWorkers
    let map: MapMaintainer
    let metrics: HubMetrics
    let rateLimiter: DeviceRateLimiter
    let mapPage: MapPage
    let logger: Logger
    /// Every request's store work, bounded in time (docs/hub.md, "When the database is gone").
    let storeGuard = StoreGuard()

    func router() -> Router<HubContext> {
        let router = Router(context: HubContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: MetricsMiddleware(metrics: metrics))
        let table = RouteTable()
        router.add(middleware: MethodNotAllowedMiddleware(table: table))
        if let middleware { router.add(middleware: CallersMiddleware(base: middleware)) }
        table.on(router, "metrics", .get) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
        }
        // Liveness: the process answers. Readiness: its database answers too (a load
        // balancer takes a replica whose PostgreSQL is gone out of rotation; /v1/health
        // said ok meanwhile and map requests hung for 15 s).
        table.on(router, "v1/health", .get) { _, _ in Self.json(.ok, ["status": "ok"]) }
        table.on(router, "v1/ready", .get) { _, _ in
            switch await Readiness.check(store) {
            case .ready: return Self.json(.ok, ["status": "ready"])
            case .notReady(let why):
                var r = error(.serviceUnavailable, "not-ready", "the hub's database does not answer: \(why)")
                r.headers[.retryAfter] = "\(Int(Readiness.deadline.components.seconds))"
                return r
            }
        }
        MapEndpoints(store: store, storeGuard: storeGuard).add(to: router, table: table) { request, context in
            try await authenticate(request, context)
        }
        mapPage.add(to: router, table: table)
        for (path, kind) in [
            ("v1/sos/:id", RecordKind.sos), ("v1/trips/:id", .trip), ("v1/drafts/:id", .draft),
            ("v1/drafts/:id/confirmation", .confirmation),
        ] {
            table.on(router, path, .put) { request, context in
                let key = context.parameters.get("id") ?? ""
                return try await guarded(request, context) { json throws(Refusal) in
                    try UploadParsing.record(kind: kind, key: key, json: json)
                } store: { device, parsed in
                    var stored = try await storeGuard.run { try await store.put(device: device, records: [parsed.record]) }
                    map.stored(Self.createdConfirmations(device, [parsed], stored))
                    judged(stored, context)
                    if !parsed.ignored.isEmpty { stored[0].ignored = parsed.ignored }
                    return Self.json(HTTPResponse.Status(code: stored[0].status), stored[0])
                }
            }
        }
        table.on(router, "v1/batch", .post) { request, context in
            try await guarded(request, context) { json throws(Refusal) in
                try UploadParsing.batch(json: json)
            } cost: { batch in
                batch.results.count
            } store: { device, batch in
                var results = batch.results
                let records = batch.toStore.map(\.parsed.record)
                let stored = try await storeGuard.run { try await store.put(device: device, records: records) }
                map.stored(Self.createdConfirmations(device, batch.toStore.map(\.parsed), stored))
                for (item, outcome) in zip(batch.toStore, stored) { results[item.index] = outcome }
                judged(results.compactMap { $0 }, context)
                return Self.json(
                    .ok, BatchResponse(results: results.compactMap { $0 }, ignored: batch.ignored.isEmpty ? nil : batch.ignored))
            }
        }
        addManualPaths(to: router, table: table)
        table.on(router, "v1/position", .put) { request, context in
            try await guarded(request, context) { json throws(Refusal) in
                try UploadParsing.livePosition(json: json)
            } store: { device, canonical in
                try await storeGuard.run { try await store.putLivePosition(device: device, body: canonical) }
                return Response(status: .noContent)
            }
        }
        return router
    }

    /// Authentication, body limits and off-pool decoding shared by every device write.
    func guarded<Parsed: Sendable>(
        _ request: Request, _ context: HubContext,
        parse: @escaping @Sendable (Data) throws(Refusal) -> Parsed,
        cost: (Parsed) -> Int = { _ in 1 },
        store: (String, Parsed) async throws -> Response
    ) async throws -> Response {
        var request = request
        let device: String
        switch try await authenticate(request, context) {
        case .success(let d): device = d
        case .failure(let response): return response
        }
        if let seconds = rateLimiter.admit(device) {
            metrics.rejected("rate-limited")
            var r = error(
                .tooManyRequests, "rate-limited",
                "more than \(Int(rateLimiter.perSecond)) records a second (\(Int(rateLimiter.burst)) at once) from this device; a batch of n records counts n; slow down"
            )
            r.headers[.retryAfter] = "\(seconds)"
            return r
        }
        let encoding: BodyEncoding
        do { encoding = try BodyEncoding(header: request.headers[.contentEncoding]) } catch { return rejected(Refusal(error)) }
        if let refusal = UploadContentType.refusal(contentType: request.headers[.contentType]) { return rejected(refusal) }
        let raw: ByteBuffer
        do {
            raw = try await request.collectBody(upTo: HubLimits.maxBody)
        } catch {
            return rejected(Refusal(.tooLarge))
        }
        context.facts.received(bytes: raw.readableBytes)
        let decoded: Result<Parsed, Refusal>? = try await workers.run(bytes: raw.readableBytes) { Self.decode(raw, encoding, parse) }
        let response: Response
        switch decoded {
        case nil:
            metrics.rejected("busy")
            return busy("\(HubLimits.maxDecoding) request bodies are being decoded; try again shortly")
        case .failure(let refusal)?: return rejected(refusal)
        case .success(let parsed)?:
            rateLimiter.charge(device, records: max(cost(parsed), 1) - 1)  // admit took 1
            response = try await store(device, parsed)
        }
        return response
    }

    /// Body bytes to what the route stores, or the refusal; on a worker thread.
    private static func decode<Parsed>(
        _ raw: ByteBuffer, _ encoding: BodyEncoding,
        _ parse: (Data) throws(Refusal) -> Parsed
    ) -> Result<Parsed, Refusal> {
        let json: Data
        do {
            json = try RequestBody.json(raw, encoding: encoding)
        } catch {
            return .failure(Refusal(error))
        }
        do {
            return .success(try parse(json))
        } catch {
            return .failure(error)
        }
    }

    enum AuthResult { case success(String), failure(Response) }

    /// The device the request's token stands for (noted in the request's facts), or the 401 answer.
    func authenticate(_ request: Request, _ context: HubContext) async throws -> AuthResult {
        guard let token = BearerToken.parse(request.headers[.authorization]) else {
            return .failure(unauthorized("missing-token", "send Authorization: Bearer <device token>"))
        }
        switch try await storeGuard.run({ [store] in try await store.authenticate(token: token) }) {
        case .device(let d):
            context.facts.authenticated(d)
            return .success(d)
        case .unknown: return .failure(unauthorized("bad-token", "the token is not known to this hub"))
        case .revoked: return .failure(unauthorized("token-revoked", "this device's token was revoked"))
        }
    }

    /// Counts an upload's results in the metrics and in the request's log event.
    private func judged(_ results: [RecordResult], _ context: HubContext) {
        metrics.stored(results)
        context.facts.judged(results)
    }

    /// The confirmations this upload stored (not those held already), for the map's index.
    static func createdConfirmations(_ device: String, _ records: [ParsedRecord], _ results: [RecordResult]) -> [IndexableConfirmation] {
        zip(records, results).compactMap { parsed, result in
            guard case .confirmation(let upload) = parsed.body, result.outcome == .created else { return nil }
            return IndexableConfirmation(device: device, id: parsed.record.id, body: parsed.record.canonical, upload: upload)
        }
    }

    func rejected(_ refusal: Refusal) -> Response {
        metrics.rejected(refusal.code)
        return Self.answer(refusal)
    }

    private func unauthorized(_ code: String, _ message: String) -> Response {
        metrics.rejected(code)
        var r = error(.unauthorized, code, message)
        r.headers[.wwwAuthenticate] = "Bearer realm=\"bikepath-hub\""
        return r
    }

    func busy(_ message: String) -> Response {
        var r = error(.serviceUnavailable, "busy", message)
        r.headers[.retryAfter] = "1"
        return r
    }

    private func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        Self.answer(Refusal(status, code, message))
    }

    static func answer(_ refusal: Refusal) -> Response {
        Response(
            status: refusal.status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: refusal.json)))
    }
}

/// `Authorization: Bearer <token>`. The scheme is case-insensitive (RFC 9110 §11.1),
/// so `bearer` and `BEARER` are accepted too.
enum BearerToken {
    static func parse(_ header: String?) -> String? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}

extension HubServer {
    static func json<T: Encodable>(_ status: HTTPResponse.Status, _ value: T) -> Response {
        let data = (try? WireJSON.encode(value)) ?? Data("{}".utf8)
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

/// The caller's middleware as a concrete type (`Router.add` takes `some RouterMiddleware`).
private struct CallersMiddleware: RouterMiddleware {
    let base: any RouterMiddleware<HubContext>

    func handle(
        _ request: Request, context: HubContext,
        next: (Request, HubContext) async throws -> Response
    ) async throws -> Response {
        try await base.handle(request, context: context, next: next)
    }
}
