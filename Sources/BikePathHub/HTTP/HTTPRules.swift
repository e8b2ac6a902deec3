import BikePathAPI
import HTTPTypes
import Hummingbird
import Synchronization

/// `Content-Type` of a record upload: `application/json`, parameters (`; charset=utf-8`)
/// allowed, any case (RFC 9110 §8.3.1). Anything else, or none, is answered 415 before the
/// body is read: a body declared as something else is not what the client meant to send.
enum UploadContentType {
    static func refusal(contentType: String?) -> Refusal? {
        let type = contentType?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
        if type == "application/json" { return nil }
        return Refusal(
            .unsupportedMediaType, "unsupported-media-type",
            contentType == nil ? "send Content-Type: application/json" : "Content-Type must be application/json")
    }
}

/// 405 with `Allow` for a path the hub serves asked with another method (RFC 9110 §15.5.6),
/// instead of the router's 404: the contract test sent TRACE to each path and got 404.
/// Every route is added through `RouteTable`, so the table and the router cannot drift apart.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = HubContext
    let table: RouteTable

    func handle(_ request: Request, context: HubContext, next: (Request, HubContext) async throws -> Response) async throws -> Response {
        let allowed = Self.methods(for: request.uri.path, in: table.routes)
        guard !allowed.isEmpty, !allowed.contains(request.method) else { return try await next(request, context) }
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        var r = HubServer.answer(
            Refusal(.methodNotAllowed, "method-not-allowed", "\(request.method.rawValue) is not served here; use \(list)"))
        r.headers[.allow] = list
        return r
    }

    /// The methods routed for `path`: a pattern's `:name` segment matches any one segment.
    static func methods(for path: String, in routes: [(path: String, method: HTTPRequest.Method)]) -> [HTTPRequest.Method] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.filter { route in
            let pattern = route.path.split(separator: "/", omittingEmptySubsequences: true)
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { p, s in p.hasPrefix(":") || p == s }
        }.map(\.method)
    }
}

/// The hub's routes as they are added to the router; read by `MethodNotAllowedMiddleware`.
final class RouteTable: Sendable {
    private let added = Mutex<[(path: String, method: HTTPRequest.Method)]>([])
    var routes: [(path: String, method: HTTPRequest.Method)] { added.withLock { $0 } }

    /// Adds the route to `router` and to the table.
    func on(
        _ router: Router<HubContext>, _ path: String, _ method: HTTPRequest.Method,
        use handler: @Sendable @escaping (Request, HubContext) async throws -> Response
    ) {
        added.withLock { $0.append((path, method)) }
        router.on(RouterPath(path), method: method, use: handler)
    }
}
