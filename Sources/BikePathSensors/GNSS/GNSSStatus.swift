import BikePathCore

/// What the GNSS source knows about gpsd and the receiver, plus every counter a field
/// diagnosis needs. A snapshot: copy it out with `GPSDSource.status`.
public struct GNSSStatus: Sendable, Equatable, Encodable {
    public var host: String
    public var port: Int
    public var connected = false
    /// gpsd's release string from its VERSION report, e.g. "3.22".
    public var gpsdVersion: String?
    /// Receiver paths from gpsd's DEVICES report.
    public var devices: [String] = []
    public var fixMode: FixMode = .unknown
    /// Monotonic receive time of the last TPV with a 2D or 3D fix.
    public var lastFixReceivedAt: SampleTime?
    public var lastFixTime: UTCTime?
    public var lastFix: GNSSFix?
    public var satellitesUsed: Int?
    public var satellitesSeen: Int?
    public var hdop: Double?
    /// GNSS time minus the system clock (CLOCK_REALTIME), seconds, from the last plausible
    /// 3D fix only. Positive: the system clock is behind.
    public var clockOffsetSeconds: Double?

    /// Distinct receiver epochs (TPVs with distinct fix times).
    public var epochs = 0
    /// Further TPVs for an epoch already seen (gpsd sends 2–3 per epoch).
    public var duplicateEpochReports = 0
    /// Raw NMEA sentences relayed.
    public var sentences = 0
    /// Lines from gpsd that were neither JSON libgps could parse nor NMEA.
    public var protocolErrors = 0
    /// 3D fixes whose time failed the plausibility check (e.g. GPS week rollover).
    public var implausibleFixTimes = 0
    public var connects = 0
    public var connectFailures = 0
    /// Connections that ended (gpsd stopped, restarted, or closed mid-line).
    public var disconnects = 0
    /// Records the consumer did not take in time (stream buffer full) and were dropped.
    public var deliveryDrops = 0
    public var lastError: String?

    /// Creates the status of a gpsd connection not yet made.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Seconds since the last 2D/3D fix, given the monotonic time now.
    public func fixAge(now: SampleTime) -> Double? {
        lastFixReceivedAt.map { now - $0 }
    }
}

/// The receiver's time only counts against the system clock when it is plausible: a 3D
/// fix (2D fixes and fixes from a receiver that has not got the leap seconds yet are often
/// off), and not before `earliest` — a receiver with the GPS week-rollover bug reports a
/// date 1024 weeks (~19.6 years) in the past.
public struct GNSSTimePlausibility: Sendable, Equatable {
    /// 2024-01-01T00:00:00Z: nothing this software sees can legitimately be older.
    public static let defaultEarliest = UTCTime(nanosecondsSince1970: 1_704_067_200 * 1_000_000_000)

    public var earliest: UTCTime
    /// Creates the rule; `earliest` defaults to 2024-01-01.
    public init(earliest: UTCTime = GNSSTimePlausibility.defaultEarliest) { self.earliest = earliest }

    /// True for a 3D fix with a UTC time no earlier than `earliest`.
    public func isPlausible(mode: FixMode, time: UTCTime?) -> Bool {
        guard mode == .threeD, let time else { return false }
        return time >= earliest
    }
}

extension GNSSStatus: ConnectionCounters {}
