import BikePathAPI
import Hummingbird
import Prometheus

/// The hub's Prometheus metrics (`GET /metrics`, text exposition format): requests and
/// their latency per route and status, records stored per kind and outcome, and
/// rejections per reason. One registry per application, so tests can read their own.
final class HubMetrics: MapPassCounter {
    let registry = PrometheusCollectorRegistry()
    /// Request latencies from 1 ms to 10 s.
    static let buckets: [Duration] = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1_000, 2_500, 10_000].map { .milliseconds($0) }

    func request(route: String, method: String, status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: .init(namespace: "bikepath_hub", metricName: "requests", unitName: "total", helpText: "HTTP requests answered"),
            labels: [("route", route), ("method", method), ("status", "\(status)")]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: .init(
                namespace: "bikepath_hub", metricName: "request_duration", unitName: "seconds",
                helpText: "Time from request head to response head"),
            labels: [("route", route)], buckets: Self.buckets
        ).record(duration)
    }

    func stored(_ results: [RecordResult]) {
        for r in results {
            registry.makeCounter(
                descriptor: .init(
                    namespace: "bikepath_hub", metricName: "records", unitName: "total",
                    helpText: "Records judged: created, duplicate, conflict or invalid"),
                labels: [("kind", r.kind.rawValue), ("outcome", r.outcome.rawValue)]
            ).increment()
        }
    }

    /// A maintainer pass's tiles: `remade` stored, `superseded` refused because the tile was
    /// marked again meanwhile (recomputed by a later pass). Summed over replicas, `remade`
    /// counts each dirty mark once: replicas claim different tiles.
    func mapTiles(remade: Int, superseded: Int) {
        for (outcome, count) in [("remade", remade), ("superseded", superseded)] where count > 0 {
            registry.makeCounter(
                descriptor: .init(
                    namespace: "bikepath_hub", metricName: "map_tiles", unitName: "total",
                    helpText: "Map tiles recomputed by this replica: remade, or superseded by a newer mark"),
                labels: [("outcome", outcome)]
            ).increment(by: Int64(count))
        }
    }

    /// A request refused before anything was stored (`reason`: the error code the client got).
    func rejected(_ reason: String) {
        registry.makeCounter(
            descriptor: .init(
                namespace: "bikepath_hub", metricName: "rejections", unitName: "total",
                helpText: "Requests refused before storing: bad token, too large, rate limited, busy, invalid"),
            labels: [("reason", reason)]
        ).increment()
    }
}

/// Times every request and counts it by route and status.
struct MetricsMiddleware: RouterMiddleware {
    typealias Context = HubContext
    let metrics: HubMetrics

    func handle(_ request: Request, context: HubContext, next: (Request, HubContext) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let route = context.endpointPath ?? "unmatched"
        do {
            let response = try await next(request, context)
            metrics.request(route: route, method: request.method.rawValue, status: response.status.code, duration: .now - start)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.request(route: route, method: request.method.rawValue, status: status, duration: .now - start)
            throw error
        }
    }
}
