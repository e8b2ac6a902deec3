import BikePathAPI
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// What a route learnt about its request, for the request's log event: the handler fills
/// it in, `RequestLogMiddleware` reads it once the response is made. One per request
/// (`HubContext` holds it; the context is copied, this object is shared).
final class RequestFacts: Sendable {
    struct Values: Sendable {
        /// The authenticated device, once its token was accepted.
        var device: String?
        /// Body bytes as received (before inflation), once read.
        var bytesIn: Int?
        /// Records judged by an upload: created, duplicate, and refused (conflict or invalid).
        var created = 0, duplicates = 0, refused = 0
        var isUpload = false
    }
    private let values = Mutex(Values())

    var snapshot: Values { values.withLock { $0 } }

    func authenticated(_ device: String) { values.withLock { $0.device = device } }
    func received(bytes: Int) { values.withLock { $0.bytesIn = bytes } }

    func judged(_ results: [RecordResult]) {
        values.withLock { v in
            v.isUpload = true
            for r in results {
                switch r.outcome {
                case .created: v.created += 1
                case .duplicate: v.duplicates += 1
                case .conflict, .invalid: v.refused += 1
                }
            }
        }
    }
}

/// One log event per request (docs/hub.md, "Logs"): method, route (the pattern, so no id
/// or query string), status, duration, bytes in, the device, records judged for uploads,
/// and the request id, which the response also carries as `X-Request-Id`. Never a
/// token, a header or a body.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = HubContext
    static let requestIDHeader = HTTPField.Name("X-Request-Id")!
    let logger: Logger

    func handle(_ request: Request, context: HubContext, next: (Request, HubContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[Self.requestIDHeader] = context.id
            log(request, context, status: response.status.code, since: start)
            return response
        } catch let error where error is any HTTPResponseError || error is ConnectionDropped {
            log(request, context, status: (error as? any HTTPResponseError)?.status.code ?? 500, since: start)
            throw error
        } catch {
            // Never an empty 500: the Error JSON, and the id to find this line by.
            var response = StoreFailure.answer(error, requestID: context.id)
            response.headers[Self.requestIDHeader] = context.id
            logger.error("request failed: \(error)", metadata: ["request_id": "\(context.id)"])
            log(request, context, status: response.status.code, since: start)
            return response
        }
    }

    private func log(_ request: Request, _ context: HubContext, status: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let facts = context.facts.snapshot
        var metadata: Logger.Metadata = [
            "request_id": "\(context.id)",
            "method": "\(request.method.rawValue)",
            "route": "\(context.endpointPath ?? "unmatched")",
            "status": "\(status)",
            "duration_ms": "\(Self.milliseconds(elapsed))",
        ]
        // Bytes read, or the declared length of a body refused before it was read (a 413).
        if let bytes = facts.bytesIn ?? request.headers[.contentLength].flatMap({ Int($0) }) { metadata["bytes_in"] = "\(bytes)" }
        if let device = facts.device { metadata["device"] = "\(device)" }
        if facts.isUpload {
            metadata["records_created"] = "\(facts.created)"
            metadata["records_duplicate"] = "\(facts.duplicates)"
            metadata["records_refused"] = "\(facts.refused)"
        }
        logger.info("request", metadata: metadata)
    }

    /// Milliseconds to 0.1 ms.
    static func milliseconds(_ d: Duration) -> Double {
        ((Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15) * 10).rounded() / 10
    }
}
