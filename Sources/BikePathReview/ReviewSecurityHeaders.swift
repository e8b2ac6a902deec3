import HTTPTypes
import Hummingbird
import Logging

/// The headers every answer of the review page carries (docs/review.md, "Who may use it"):
/// the page's one button publishes a ride, so no other site may frame it and trick a tap onto
/// it (clickjacking), and the page loads nothing but its own stylesheet and images (and the
/// street tiles' server when `review.tiles_url` is set). The page has no script at all.
public enum ReviewSecurityHeaders {
    /// The Content-Security-Policy for a page with `streetMap` under its maps.
    /// - `default-src 'none'`: nothing loads that is not named below (no script, font, frame, fetch);
    /// - `style-src 'self'`: the stylesheet `/review.css`, no inline style (the page has none);
    /// - `img-src 'self'`: the add mode's map (`map.svg`) and `/tiles/…`, plus the tile server's
    ///   origin for `review.tiles_url`;
    /// - `form-action 'self'`: every form posts (or gets) here;
    /// - `frame-ancestors 'none'` (and `X-Frame-Options: DENY` for browsers before CSP 2): no framing;
    /// - `base-uri 'none'`: an injected `<base>` cannot move the forms' relative actions.
    public static func contentSecurityPolicy(_ streetMap: StreetMap) -> String {
        let images = ["'self'"] + (tileOrigin(streetMap).map { [$0] } ?? [])
        return "default-src 'none'; style-src 'self'; img-src \(images.joined(separator: " ")); form-action 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'"
    }

    /// `https://tile.openstreetmap.org` for `https://tile.openstreetmap.org/{z}/{x}/{y}.png`; the
    /// scheme alone (`https:`) when the host itself is templated (`{s}.tile…`), which a CSP source
    /// cannot express; nil without a tile server.
    static func tileOrigin(_ streetMap: StreetMap) -> String? {
        guard case .tiles(let template, _, _) = streetMap, let separator = template.range(of: "://") else { return nil }
        let scheme = template[..<separator.lowerBound]
        let authority = template[separator.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty, authority.allSatisfy({ $0.isLetter || $0.isNumber || ".-:[]".contains($0) }) else {
            return String(scheme) + ":"
        }
        return String(scheme) + "://" + String(authority)
    }

    /// The fields, for a router's answers and for the server's own 431.
    public static func fields(_ streetMap: StreetMap) -> HTTPFields {
        var fields = HTTPFields()
        fields[.contentSecurityPolicy] = contentSecurityPolicy(streetMap)
        fields[HTTPField.Name("X-Frame-Options")!] = "DENY"
        fields[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        fields[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        return fields
    }
}

/// Puts `ReviewSecurityHeaders` on every answer: pages, redirects, tiles, the stylesheet, and the
/// errors the router or a route throws (a 404 for an unknown path, a 400 for an unreadable
/// form), which Hummingbird would otherwise turn into answers without them. First of the
/// router's middlewares, so the Host check's 400 and 421 carry them too.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    let fields: HTTPFields

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Hummingbird answers any other error with a bare 500; said here, with the headers.
            context.logger.error("review page: \(request.method) \(request.uri.path): \(error)")
            response = try HTTPError(.internalServerError).response(from: request, context: context)
        }
        for field in fields { response.headers[field.name] = field.value }
        return response
    }
}
