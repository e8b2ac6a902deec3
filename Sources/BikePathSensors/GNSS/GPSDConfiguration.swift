/// Where gpsd is and how to reach it again when it goes away.
public struct GPSDConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// Ask gpsd to relay raw NMEA as well as JSON (needed to record a session).
    public var relayNMEA: Bool
    public var initialBackoff: Double
    public var maximumBackoff: Double
    public var plausibility: GNSSTimePlausibility

    /// Creates a configuration; gpsd at localhost:2947 by default, reconnect backoff from 0.25
    /// s up to 8 s.
    public init(
        host: String = "localhost", port: Int = 2947, relayNMEA: Bool = true,
        initialBackoff: Double = 0.25, maximumBackoff: Double = 8,
        plausibility: GNSSTimePlausibility = GNSSTimePlausibility()
    ) {
        self.host = host
        self.port = port
        self.relayNMEA = relayNMEA
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.plausibility = plausibility
    }
}

/// What the GNSS source delivers, in receive order.
public enum GNSSEvent: Sendable, Equatable {
    /// One raw NMEA sentence gpsd relayed: what a recording stores and the core decodes.
    case record(SensorRecord)
    /// The first TPV of each receiver epoch (later TPVs of the same epoch only update status).
    case fix(GNSSFix)
    /// The connection to gpsd came up (true) or went down (false).
    case connection(Bool)
}

import BikePathCore
