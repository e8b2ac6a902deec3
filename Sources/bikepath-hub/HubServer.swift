import BikePathAPI
import CompressNIO
import Foundation
import Hummingbird
import Logging
import NIOCore

/// Request context that keeps the connection, so that the test-only
/// "commit then drop the connection" fault can close it.
struct HubContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    /// Compressed (wire) size limit; the decompressed limit is `HubLimits.maxBody`.
    var maxUploadSize: Int { HubLimits.maxBody }
}

enum HubLimits {
    static let maxBody = 32 * 1024 * 1024
}

/// Thrown after the connection was deliberately closed (test-only fault).
struct ConnectionDropped: Error {}

/// The routes of docs/api.yaml.
struct HubServer {
    let database: HubDatabase
    let dice: FaultDice
    let logger: Logger

    func router() -> Router<HubContext> {
        let router = Router(context: HubContext.self)
        router.get("v1/health") { _, _ in json(.ok, ["status": "ok"]) }
        for (path, kind) in [("v1/sos/:id", RecordKind.sos), ("v1/trips/:id", .trip), ("v1/drafts/:id", .draft),
                             ("v1/drafts/:id/confirmation", .confirmation)] {
            router.put(RouterPath(path)) { request, context in
                try await guarded(request, context) { device, body in
                    try await putOne(kind: kind, id: context.parameters.get("id") ?? "", body: body, device: device, context: context)
                }
            }
        }
        router.post("v1/batch") { request, context in
            try await guarded(request, context) { device, body in
                try await putBatch(body: body, device: device, context: context)
            }
        }
        router.put("v1/position") { request, context in
            try await guarded(request, context) { device, body in
                guard let live = try? JSONDecoder().decode(LivePositionUpload.self, from: body) else {
                    return error(.badRequest, "invalid-json", "the body is not a live position document")
                }
                let problems = Validation.problems(live)
                guard problems.isEmpty else { return error(.badRequest, "invalid", problems.joined(separator: "; ")) }
                try await database.putLivePosition(device: device, body: try WireJSON.encode(live))
                return Response(status: .noContent)
            }
        }
        return router
    }

    /// Faults, authentication and body decoding shared by every record route.
    private func guarded(_ request: Request, _ context: HubContext,
                         _ handle: (String, Data) async throws -> Response) async throws -> Response {
        var request = request
        let f = dice.faults
        if dice.roll(f.failRatio) { return error(.internalServerError, "injected", "test-only fault: random 500") }
        if dice.roll(f.busyRatio) {
            var r = error(.serviceUnavailable, "busy", "test-only fault: try again later")
            r.headers[.retryAfter] = "1"
            return r
        }
        if f.delayMilliseconds > 0, dice.roll(f.delayRatio) { try await Task.sleep(for: .milliseconds(f.delayMilliseconds)) }

        let device: String
        switch try await authenticate(request) {
        case .success(let d): device = d
        case .failure(let response): return response
        }
        let raw: ByteBuffer
        do {
            raw = try await request.collectBody(upTo: HubLimits.maxBody)
        } catch {
            return self.error(.contentTooLarge, "too-large", "bodies are limited to \(HubLimits.maxBody) bytes")
        }
        let body: Data
        switch request.headers[.contentEncoding]?.lowercased() {
        case nil, "identity":
            body = Data(raw.readableBytesView)
        case "gzip":
            var compressed = raw
            guard let plain = try? compressed.decompress(with: .gzip, maxSize: HubLimits.maxBody) else {
                return error(.badRequest, "bad-gzip", "the gzip body is corrupt or inflates past \(HubLimits.maxBody) bytes")
            }
            body = Data(plain.readableBytesView)
        case let other?:
            return error(.unsupportedMediaType, "unsupported-encoding", "Content-Encoding \(other) is not supported; use gzip or none")
        }
        let response = try await handle(device, body)
        if response.status.code < 300, request.method != .get, dice.roll(f.dropAfterCommitRatio) {
            logger.notice("test-only fault: committed, now dropping the connection")
            try? await context.channel.close()
            throw ConnectionDropped()
        }
        return response
    }

    private enum AuthResult { case success(String), failure(Response) }

    private func authenticate(_ request: Request) async throws -> AuthResult {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer "), header.count > 7 else {
            return .failure(unauthorized("missing-token", "send Authorization: Bearer <device token>"))
        }
        switch try await database.authenticate(token: String(header.dropFirst(7))) {
        case .device(let d): return .success(d)
        case .unknown: return .failure(unauthorized("bad-token", "the token is not known to this hub"))
        case .revoked: return .failure(unauthorized("token-revoked", "this device's token was revoked"))
        }
    }

    private func unauthorized(_ code: String, _ message: String) -> Response {
        var r = error(.unauthorized, code, message)
        r.headers[.wwwAuthenticate] = "Bearer realm=\"bikepath-hub\""
        return r
    }

    private func putOne(kind: RecordKind, id: String, body: Data, device: String, context: HubContext) async throws -> Response {
        let parsed: RecordBody
        do {
            parsed = try RecordBody.decode(kind: kind, from: body)
        } catch {
            return result(RecordResult(kind: kind, id: id, status: 400, outcome: .invalid, error: "not a valid \(kind.rawValue) document: \(Self.describe(error))"))
        }
        if let invalid = check(parsed, key: id) { return result(invalid) }
        let stored = try await database.put(device: device, records: [(kind, id, try parsed.canonicalJSON())])
        return result(stored[0])
    }

    private func putBatch(body: Data, device: String, context: HubContext) async throws -> Response {
        let batch: BatchRequest
        do {
            batch = try JSONDecoder().decode(BatchRequest.self, from: body)
        } catch {
            return self.error(.badRequest, "invalid-batch", "not a valid batch document: \(Self.describe(error))")
        }
        guard batch.records.count <= BatchRequest.maxItems else {
            return error(.contentTooLarge, "too-many-records", "at most \(BatchRequest.maxItems) records per batch")
        }
        var results = [RecordResult?](repeating: nil, count: batch.records.count)
        var toStore: [(Int, RecordKind, String, Data)] = []
        var seen = Set<String>()
        for (i, item) in batch.records.enumerated() {
            if let invalid = check(item.body, key: item.id) {
                results[i] = invalid
            } else if !seen.insert("\(item.kind.rawValue)/\(item.id)").inserted {
                results[i] = RecordResult(kind: item.kind, id: item.id, status: 400, outcome: .invalid, error: "the same record twice in one batch")
            } else {
                toStore.append((i, item.kind, item.id, try item.body.canonicalJSON()))
            }
        }
        let stored = try await database.put(device: device, records: toStore.map { ($0.1, $0.2, $0.3) })
        for (k, s) in zip(toStore, stored) { results[k.0] = s }
        return json(.ok, BatchResponse(results: results.compactMap { $0 }))
    }

    /// Validation problems as an `invalid` result, or nil when the record is sound.
    private func check(_ body: RecordBody, key: String) -> RecordResult? {
        var problems = Validation.problems(body)
        if !Validation.isValidID(key) { problems.insert("id: the key must be 1-64 characters of A-Z a-z 0-9 - _", at: 0) }
        if body.id != key { problems.insert("id: the body's id \(body.id) differs from the key \(key)", at: 0) }
        guard !problems.isEmpty else { return nil }
        return RecordResult(kind: body.kind, id: key, status: 400, outcome: .invalid, error: problems.joined(separator: "; "))
    }

    private func result(_ r: RecordResult) -> Response {
        json(HTTPResponse.Status(code: r.status), r)
    }

    private func error(_ status: HTTPResponse.Status, _ code: String, _ message: String) -> Response {
        json(status, ErrorBody(error: code, message: message))
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let c): "missing field \((c.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let c), DecodingError.valueNotFound(_, let c):
            "wrong type at \(c.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.dataCorrupted(let c): "malformed JSON at \(c.codingPath.map(\.stringValue).joined(separator: ".")): \(c.debugDescription)"
        default: "\(error)"
        }
    }
}

private func json<T: Encodable>(_ status: HTTPResponse.Status, _ value: T) -> Response {
    let data = (try? WireJSON.encode(value)) ?? Data("{}".utf8)
    return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
}
