import BikePathAPI
import CompressNIO
import Foundation
import NIOCore

/// Where and how to reach the hub.
public struct HubEndpoint: Sendable {
    public var baseURL: String
    public var token: DeviceToken
    /// A private CA (PEM) trusted in addition to the system's roots. TLS
    /// certificate verification itself is always on.
    public var caFile: String?
    public var requestTimeoutSeconds: Double
    public var connectTimeoutSeconds: Double

    /// Seconds a request may take, head and body, before it is given up (`sync run --timeout`).
    public static let defaultRequestTimeoutSeconds = 15.0

    /// Creates an endpoint; a trailing `/` of `baseURL` is dropped. Timeouts in seconds: 15 per
    /// request, 5 to connect.
    public init(
        baseURL: String, token: DeviceToken, caFile: String? = nil, requestTimeoutSeconds: Double = defaultRequestTimeoutSeconds,
        connectTimeoutSeconds: Double = 5
    ) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.token = token
        self.caFile = caFile
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.connectTimeoutSeconds = connectTimeoutSeconds
    }

    /// Why an endpoint is refused before any request: not an http(s) URL with a host, or plain
    /// http to a host that is not loopback.
    public enum Problem: Error, CustomStringConvertible {
        case badURL(String)
        case plainHTTPNotLoopback(String)
        public var description: String {
            switch self {
            case .badURL(let u): "not a hub URL: \(u) (expected https://host[:port])"
            case .plainHTTPNotLoopback(let u):
                "refusing plain http to \(u): the token would travel in clear; use https (plain http is allowed on loopback only)"
            }
        }
    }

    /// https anywhere; plain http only to a loopback address (tests, a hub on the same device).
    func check() throws {
        guard let url = URL(string: baseURL), let scheme = url.scheme, let host = url.host else { throw Problem.badURL(baseURL) }
        if scheme == "https" { return }
        guard scheme == "http" else { throw Problem.badURL(baseURL) }
        guard ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else { throw Problem.plainHTTPNotLoopback(baseURL) }
    }
}

/// One HTTP answer, reduced to what sync decides on.
public struct HubAnswer: Sendable {
    public var status: Int
    public var retryAfter: String?
    public var body: Data
}

/// Counts what went over the wire (request and response bodies, plus the
/// request line and headers), for the benchmark and the sync log.
public struct WireCounters: Sendable, Equatable {
    public var requests = 0
    public var requestBodyBytes = 0
    public var requestHeaderBytes = 0
    public var responseBodyBytes = 0
    public var responseHeaderBytes = 0
    public var uncompressedBodyBytes = 0
}

/// The HTTP side of sync (libcurl, `CurlSession`): gzip bodies, bearer token in a header
/// (never in the URL), no redirects, one deadline for the whole exchange.
public final class HubClient: Sendable {
    public let endpoint: HubEndpoint
    private let session = CurlSession()
    private let counters = LockedCounters()

    /// The longest answer read: a batch's results are a few kB (docs/api.yaml).
    static let maxAnswerBytes = 8 * 1024 * 1024

    /// Creates a client for `endpoint`: full TLS verification (the system's roots, plus
    /// `caFile` when given), no redirects, no connect retries (sync's own backoff decides when
    /// to try again). libcurl is loaded at the first request, not here.
    /// - Throws: `HubEndpoint.Problem` when the URL is not https (or http to loopback).
    public init(endpoint: HubEndpoint) throws {
        try endpoint.check()
        self.endpoint = endpoint
    }

    public var wire: WireCounters { counters.value }

    /// Closes the kept connections; call once, when sync ends. A second call does nothing.
    public func shutdown() async {
        session.close()
    }

    /// Sends `records` in one gzip'ed `POST /v1/batch`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when a record cannot be encoded; `HubTransportError` when the hub cannot be
    ///   reached or the answer exceeds 8 MiB; `DeadlinePassed`.
    public func postBatch(_ records: [BatchRequest.Item]) async throws -> HubAnswer {
        try await send(method: "POST", path: "/v1/batch", json: try WireJSON.encode(BatchRequest(records: records)))
    }

    /// Sends one record as `PUT /v1/<kind>/<id>`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when the body cannot be encoded; `HubTransportError` when the hub cannot be
    ///   reached or the answer exceeds 8 MiB; `DeadlinePassed`.
    public func put(_ body: RecordBody, id: String) async throws -> HubAnswer {
        try await send(method: "PUT", path: Self.path(kind: body.kind, id: id), json: try body.canonicalJSON())
    }

    /// Sends the live position as `PUT /v1/position`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when it cannot be encoded; `HubTransportError` when the hub
    ///   cannot be reached or the answer exceeds 8 MiB; `DeadlinePassed`.
    public func putLivePosition(_ live: LivePositionUpload) async throws -> HubAnswer {
        try await send(method: "PUT", path: "/v1/position", json: try WireJSON.encode(live))
    }

    /// Sends a path the rider named as `PUT /v1/manual-paths/<id>` with `body`, the JSON the
    /// device stored (the same bytes on every try, so a resend after a lost answer is a
    /// duplicate, not a conflict); the answer's status is not checked here.
    /// - Throws: `HubTransportError` when the hub cannot be reached or the answer exceeds
    ///   8 MiB; `DeadlinePassed`.
    public func putManualPath(_ body: Data, id: String) async throws -> HubAnswer {
        try await send(method: "PUT", path: "/v1/manual-paths/\(id)", json: body)
    }

    /// No whole answer, head and body, within the request timeout.
    public struct DeadlinePassed: Error, CustomStringConvertible {
        public var seconds: Double
        public var description: String { "no complete answer within \(seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)") s" }
    }

    static func path(kind: RecordKind, id: String) -> String {
        switch kind {
        case .sos: "/v1/sos/\(id)"
        case .trip: "/v1/trips/\(id)"
        case .draft: "/v1/drafts/\(id)"
        case .confirmation: "/v1/drafts/\(id)/confirmation"
        }
    }

    private func send(method: String, path: String, json: Data) async throws -> HubAnswer {
        var plain = ByteBuffer(bytes: json)
        let gz = try plain.compress(with: .gzip)
        // "Expect:" and "Accept:" empty: libcurl would wait up to a second for a
        // 100-continue before a large body, and the hub answers JSON whatever is accepted.
        let exchange = HTTPExchange(
            method: method, url: endpoint.baseURL + path,
            headers: [
                "Authorization: Bearer \(endpoint.token.value)", "Content-Type: application/json", "Content-Encoding: gzip",
                "Expect:", "Accept:",
            ],
            body: Array(gz.readableBytesView), connectTimeoutSeconds: endpoint.connectTimeoutSeconds,
            timeoutSeconds: endpoint.requestTimeoutSeconds, caFile: endpoint.caFile, maxAnswerBytes: Self.maxAnswerBytes)
        counters.add { c in
            c.requests += 1
            c.requestBodyBytes += gz.readableBytes
            c.uncompressedBodyBytes += json.count
        }
        let answer = try await session.perform(exchange)
        counters.add {
            $0.requestHeaderBytes += answer.requestHeaderBytes
            $0.responseBodyBytes += answer.body.count
            $0.responseHeaderBytes += answer.responseHeaderBytes
        }
        return HubAnswer(status: answer.status, retryAfter: answer.headers["retry-after"], body: answer.body)
    }
}

import Synchronization

final class LockedCounters: Sendable {
    private let m = Mutex(WireCounters())
    var value: WireCounters { m.withLock { $0 } }
    func add(_ f: (inout WireCounters) -> Void) { m.withLock { f(&$0) } }
}
