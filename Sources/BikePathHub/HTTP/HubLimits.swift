import BikePathAPI
import BikePathServing
import NIOCore

/// Every bound the hub puts on a client, in one place (docs/api.yaml and
/// docs/sync.md state them). The connection figures come from `serve`'s options.
public struct HubLimits: Sendable {
    /// Bytes on the wire, and bytes after gzip inflation: a sync batch of 200 records is ~1 MB of JSON.
    static let maxBody = ErrorBody.maxBodyBytes
    static let maxInflated = ErrorBody.maxBodyBytes
    static let json = JSONLimits.upload

    /// Request bodies inflated and decoded at once (on `decodeThreads`, off the
    /// request handlers' pool); one more is answered 503 with `Retry-After`.
    static let maxDecoding = 8
    static let decodeThreads = 2

    /// Map tiles (500 m) one box may span: a phone's view at the 10,000 km² the area limit
    /// allows (70 × 140 km) spans 39,200. A thin box round the world is under that area and
    /// spanned 80,000 (1.8 s and 480 MB for one heatmap).
    static let maxTilesPerBox = 40_000
    /// Route searches at once, and waiting (the routing layer's rule: `SearchGate.capacity`).
    static let routeSearches = SearchGate.capacity

    /// Header limits of the HTTP/1 decoder; past them the answer is 431.
    static let maxHeaderFieldSize = 8 * 1024
    static let maxHeaderListSize = 16 * 1024
    static let maxHeaderCount = 100

    /// Deadlines, the connection cap and each address's share (`ConnectionPolicy.hub`,
    /// docs/connections.md); `serve`'s options change them.
    public var connections = ConnectionPolicy.hub
    /// Connections held at once; more wait in the listen backlog (not accepted, no descriptor used).
    public var maxConnections: Int { connections.maxConnections }
    /// A kept-alive connection must send its next request head within this long of the last answer.
    public var idleTimeout: TimeAmount { connections.idleTimeout }
    /// A new connection must have sent its first complete request head by then.
    public var headerTimeout: TimeAmount { connections.headerTimeout }

    /// Records each device may send per second on average (0: no limit), and at once. A
    /// batch of n records costs n. A real device sends a handful of records per ride, and
    /// one catching up after months offline a few hundred: 100/s drains that in seconds,
    /// and a burst of 1,000 lets one full batch (`BatchRequest.maxItems`) through at once.
    public var deviceRecordsPerSecond = 100.0
    public var deviceBurst = Double(BatchRequest.maxItems)

    public init(
        maxConnections: Int = ConnectionPolicy.hub.maxConnections, idleTimeout: TimeAmount = ConnectionPolicy.hub.idleTimeout,
        headerTimeout: TimeAmount = ConnectionPolicy.hub.headerTimeout, bodyTimeout: TimeAmount = ConnectionPolicy.hub.bodyTimeout,
        perClient: Int = ConnectionPolicy.hub.perClient, deviceRecordsPerSecond: Double = 100,
        deviceBurst: Double = Double(BatchRequest.maxItems)
    ) {
        connections = ConnectionPolicy(
            maxConnections: maxConnections, perClient: perClient, headerTimeout: headerTimeout,
            bodyTimeout: bodyTimeout, idleTimeout: idleTimeout)
        self.deviceRecordsPerSecond = deviceRecordsPerSecond
        self.deviceBurst = deviceBurst
    }

    /// Descriptors kept for SQLite (~3 per connection, 6 connections), the event loops and stdio.
    static let reservedDescriptors = 64

    /// `maxConnections`, lowered so that connections can never take the descriptors
    /// the hub itself needs (with 1,024 descriptors, 1,100 idle connections used to lock it up).
    func connectionCap(descriptorLimit: Int) -> Int {
        max(1, min(maxConnections, descriptorLimit - Self.reservedDescriptors))
    }
}
