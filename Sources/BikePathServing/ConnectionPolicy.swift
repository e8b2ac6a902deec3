import NIOCore

/// How long a client may take and how much of a server it may hold: one policy for every
/// server the project runs (the hub, the review page, the status socket), each with its
/// own figures below. docs/connections.md is the one place that states them.
///
/// Every deadline is a total, never reset by a byte: a client that trickles one byte
/// every 2 s used to hold a hub connection for ever (the idle timer reset on each byte).
public struct ConnectionPolicy: Sendable, Equatable {
    /// Connections held at once; more wait in the listen backlog (HTTP) or are turned
    /// away (status socket, after making room: see `ClientShares`).
    public var maxConnections: Int
    /// Connections one client (an IP address; a uid on the status socket) may hold at
    /// once: a single client can never take every slot.
    public var perClient: Int
    /// From accept to the end of the first request head.
    public var headerTimeout: TimeAmount
    /// From a request head to the end of its body.
    public var bodyTimeout: TimeAmount
    /// From the end of one request to the end of the next one's head on a kept-alive connection.
    public var idleTimeout: TimeAmount

    public init(maxConnections: Int, perClient: Int, headerTimeout: TimeAmount, bodyTimeout: TimeAmount, idleTimeout: TimeAmount) {
        self.maxConnections = max(1, maxConnections)
        self.perClient = max(1, min(perClient, maxConnections))
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.idleTimeout = idleTimeout
    }

    /// `headerTimeout` in seconds, for servers outside NIO (the status socket's poll loop).
    public var headerTimeoutSeconds: Double { Double(headerTimeout.nanoseconds) / 1e9 }

    /// The hub: 512 connections (a city's devices sync every few minutes for well under
    /// a second each), 64 per address (a carrier's NAT puts many phones behind one).
    /// A 200-record batch is ~1 MB of JSON, ~150 KB gzipped: 60 s for a body is 2.5 KB/s,
    /// slower than any mobile link that works at all.
    public static let hub = ConnectionPolicy(
        maxConnections: 512, perClient: 64, headerTimeout: .seconds(10),
        bodyTimeout: .seconds(60), idleTimeout: .seconds(30))

    /// The review page: one rider's phone or two. A browser opens up to 6 connections a
    /// host; 8 a client and 32 in all leave room for the rider while something else holds
    /// its share. Its bodies are form posts of a few hundred bytes.
    public static let reviewPage = ConnectionPolicy(
        maxConnections: 32, perClient: 8, headerTimeout: .seconds(10),
        bodyTimeout: .seconds(10), idleTimeout: .seconds(30))

    /// The status socket: `status`, `mark` and a `tail` or two; a request is one short line
    /// sent at once. 32 × 256 KiB of buffers at most; 8 a uid, so that one local user's
    /// clients cannot take the slots `bikepathd status` and the handlebar button need.
    public static let statusSocket = ConnectionPolicy(
        maxConnections: 32, perClient: 8, headerTimeout: .seconds(5),
        bodyTimeout: .seconds(5), idleTimeout: .seconds(5))
}
