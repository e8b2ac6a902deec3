import AsyncHTTPClient
import BikePathAPI
import CompressNIO
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

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

/// The HTTP side of sync (AsyncHTTPClient): gzip bodies, bearer token in a
/// header (never in the URL), no redirects, a deadline per request.
public final class HubClient: Sendable {
    public let endpoint: HubEndpoint
    let http: HTTPClient
    private let counters = LockedCounters()

    /// Creates a client for `endpoint`: full TLS verification (plus `caFile` when given), no
    /// redirects, no connect retries.
    /// - Throws: `HubEndpoint.Problem` when the URL is not https (or http to loopback).
    public init(endpoint: HubEndpoint) throws {
        try endpoint.check()
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .fullVerification
        if let ca = endpoint.caFile { tls.additionalTrustRoots = [.file(ca)] }
        var config = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
        config.timeout = .init(
            connect: .milliseconds(Int64(endpoint.connectTimeoutSeconds * 1000)),
            read: .milliseconds(Int64(endpoint.requestTimeoutSeconds * 1000)))
        // A refused connection fails the request at once; sync's own backoff decides
        // when to try again (the pool's retries would hide an offline hub until the deadline).
        config.connectionPool.retryConnectionEstablishment = false
        self.endpoint = endpoint
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: config)
    }

    public var wire: WireCounters { counters.value }

    /// Shuts the HTTP client down; call once, when sync ends. A second call does nothing.
    public func shutdown() async {
        try? await http.shutdown()  // already shut down: nothing left to release
    }

    /// Sends `records` in one gzip'ed `POST /v1/batch`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when a record cannot be encoded; AsyncHTTPClient's
    ///   `HTTPClientError` (or a NIO error) when the hub cannot be reached, the deadline passes
    ///   or the answer exceeds 8 MiB.
    public func postBatch(_ records: [BatchRequest.Item]) async throws -> HubAnswer {
        try await send(method: .POST, path: "/v1/batch", json: try WireJSON.encode(BatchRequest(records: records)))
    }

    /// Sends one record as `PUT /v1/<kind>/<id>`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when the body cannot be encoded; AsyncHTTPClient's
    ///   `HTTPClientError` (or a NIO error) when the hub cannot be reached, the deadline passes
    ///   or the answer exceeds 8 MiB.
    public func put(_ body: RecordBody, id: String) async throws -> HubAnswer {
        try await send(method: .PUT, path: Self.path(kind: body.kind, id: id), json: try body.canonicalJSON())
    }

    /// Sends the live position as `PUT /v1/position`; the answer's status is not checked here.
    /// - Throws: `EncodingError` when it cannot be encoded; AsyncHTTPClient's `HTTPClientError`
    ///   (or a NIO error) when the hub cannot be reached, the deadline passes or the answer
    ///   exceeds 8 MiB.
    public func putLivePosition(_ live: LivePositionUpload) async throws -> HubAnswer {
        try await send(method: .PUT, path: "/v1/position", json: try WireJSON.encode(live))
    }

    /// Sends a path the rider named as `PUT /v1/manual-paths/<id>` with `body`, the JSON the
    /// device stored (the same bytes on every try, so a resend after a lost answer is a
    /// duplicate, not a conflict); the answer's status is not checked here.
    /// - Throws: AsyncHTTPClient's `HTTPClientError` (or a NIO error) when the hub cannot be
    ///   reached, the deadline passes or the answer exceeds 8 MiB.
    public func putManualPath(_ body: Data, id: String) async throws -> HubAnswer {
        try await send(method: .PUT, path: "/v1/manual-paths/\(id)", json: body)
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

    private func send(method: HTTPMethod, path: String, json: Data) async throws -> HubAnswer {
        var plain = ByteBuffer(bytes: json)
        let gz = try plain.compress(with: .gzip)
        var request = HTTPClientRequest(url: endpoint.baseURL + path)
        request.method = method
        request.headers.add(name: "Authorization", value: "Bearer \(endpoint.token.value)")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Content-Encoding", value: "gzip")
        request.body = .bytes(gz)
        // Request line, our headers, and the Host and Content-Length lines AsyncHTTPClient adds.
        let headerBytes =
            "\(method.rawValue) \(path) HTTP/1.1\r\n".utf8.count
            + request.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + "Host: \(URL(string: endpoint.baseURL)?.host ?? "")\r\nContent-Length: \(gz.readableBytes)\r\n\r\n".utf8.count
        counters.add { c in
            c.requests += 1
            c.requestBodyBytes += gz.readableBytes
            c.requestHeaderBytes += headerBytes
            c.uncompressedBodyBytes += json.count
        }
        // The deadline is the whole exchange's: AsyncHTTPClient's ends once the answer's head
        // is in, and its read timeout restarts with every byte (a hub trickling a 223-byte
        // body at 1 byte/s held a 5 s sync for 222 s).
        let seconds = endpoint.requestTimeoutSeconds
        let (response, body) = try await withThrowingTaskGroup(of: (HTTPClientResponse, ByteBuffer)?.self) { group in
            group.addTask { [http, request] in
                let response = try await http.execute(request, deadline: .now() + .milliseconds(Int64(seconds * 1000)))
                return (response, try await response.body.collect(upTo: 8 * 1024 * 1024))
            }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let answer = first else { throw DeadlinePassed(seconds: seconds) }
            return answer
        }
        let responseHeaderBytes =
            "HTTP/1.1 \(response.status.code) \(response.status.reasonPhrase)\r\n".utf8.count
            + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 } + 2
        counters.add {
            $0.responseBodyBytes += body.readableBytes
            $0.responseHeaderBytes += responseHeaderBytes
        }
        return HubAnswer(
            status: Int(response.status.code), retryAfter: response.headers.first(name: "Retry-After"), body: Data(body.readableBytesView))
    }
}

import Synchronization

final class LockedCounters: Sendable {
    private let m = Mutex(WireCounters())
    var value: WireCounters { m.withLock { $0 } }
    func add(_ f: (inout WireCounters) -> Void) { m.withLock { f(&$0) } }
}
