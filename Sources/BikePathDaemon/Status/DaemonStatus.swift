import BikePathAPI
import Foundation

/// What `bikepathd status` shows; the daemon fills it from its parts on each
/// request. Optional fields are unknown (no fix yet, sync off, …), not zero.
public struct DaemonStatus: Sendable, Equatable, Codable {
    public var version: String
    public var pid: Int32
    /// Seconds since the daemon started.
    public var uptimeS: Double
    /// Human-readable reasons the daemon runs degraded ("gpsd unreachable", …); empty when all is well.
    public var degraded: [String]
    public var trip: Trip
    public var gnss: GNSS
    public var imu: IMU
    public var store: Store
    public var sync: Sync

    /// The trip under way, if any: its state, id, distance (m) and duration (s).
    public struct Trip: Sendable, Equatable, Codable {
        /// "idle", "starting", "riding", "paused", …: the chain's own names.
        public var state: String
        public var id: String?
        public var distanceM: Double?
        public var durationS: Double?
        /// Creates the trip part from its fields.
        public init(state: String, id: String? = nil, distanceM: Double? = nil, durationS: Double? = nil) {
            self.state = state
            self.id = id
            self.distanceM = distanceM
            self.durationS = durationS
        }
    }

    /// gpsd: connected or not, the last fix (degrees) and its age (s), and the fix mode.
    public struct GNSS: Sendable, Equatable, Codable {
        public var connected: Bool
        public var lastFixLat: Double?
        public var lastFixLon: Double?
        /// Seconds since the last fix was received.
        public var lastFixAgeS: Double?
        public var mode: String?
        /// Creates the GNSS part from its fields.
        public init(connected: Bool, lastFixLat: Double? = nil, lastFixLon: Double? = nil, lastFixAgeS: Double? = nil, mode: String? = nil)
        {
            self.connected = connected
            self.lastFixLat = lastFixLat
            self.lastFixLon = lastFixLon
            self.lastFixAgeS = lastFixAgeS
            self.mode = mode
        }
    }

    /// The IMU: connected or not, and its measured rate.
    public struct IMU: Sendable, Equatable, Codable {
        public var connected: Bool
        /// Measured over the last seconds, not the configured rate.
        public var rateHz: Double?
        /// Creates the IMU part from its fields.
        public init(connected: Bool, rateHz: Double? = nil) {
            self.connected = connected
            self.rateHz = rateHz
        }
    }

    /// The store: its path, the outbox length and the free disk space (bytes).
    public struct Store: Sendable, Equatable, Codable {
        public var path: String
        /// Outbox entries waiting to be synced.
        public var queueLength: Int
        public var freeBytes: Int64?
        /// Creates the store part from its fields.
        public init(path: String, queueLength: Int, freeBytes: Int64? = nil) {
            self.path = path
            self.queueLength = queueLength
            self.freeBytes = freeBytes
        }
    }

    /// Sync: on or off, and the last attempt (when, what, whether it succeeded).
    public struct Sync: Sendable, Equatable, Codable {
        public var enabled: Bool
        /// UTC, ISO 8601.
        public var lastAttemptAt: String?
        public var lastResult: String?
        public var succeeded: Bool?
        /// Creates the sync part from its fields.
        public init(enabled: Bool, lastAttemptAt: String? = nil, lastResult: String? = nil, succeeded: Bool? = nil) {
            self.enabled = enabled
            self.lastAttemptAt = lastAttemptAt
            self.lastResult = lastResult
            self.succeeded = succeeded
        }
    }

    /// Creates a status from its parts.
    public init(
        version: String, pid: Int32, uptimeS: Double, degraded: [String] = [], trip: Trip, gnss: GNSS,
        imu: IMU, store: Store, sync: Sync
    ) {
        self.version = version
        self.pid = pid
        self.uptimeS = uptimeS
        self.degraded = degraded
        self.trip = trip
        self.gnss = gnss
        self.imu = imu
        self.store = store
        self.sync = sync
    }
}

/// One line of `bikepathd tail`: something the daemon did or saw.
public struct DaemonEvent: Sendable, Equatable, Codable {
    /// UTC, ISO 8601.
    public var time: String
    /// A stable machine name: `trip_started`, `obstacle`, `sync`, `gnss_lost`, `dropped`, …
    public var kind: String
    public var message: String
    public var fields: [String: String]

    /// An event stamped now (UTC).
    public init(kind: String, message: String, fields: [String: String] = [:]) {
        self.init(time: isoNow(), kind: kind, message: message, fields: fields)
    }

    /// Creates an event at `time` (UTC, ISO 8601).
    public init(time: String, kind: String, message: String, fields: [String: String] = [:]) {
        self.time = time
        self.kind = kind
        self.message = message
        self.fields = fields
    }
}

/// Reads the socket protocol's lines, which `JSONText.snakeCaseLine` writes (status and
/// events hold strings and finite numbers: rates and ages come from positive intervals).
enum StatusJSON {
    static func decode<T: Decodable>(_ type: T.Type, from line: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(type, from: Data(line.utf8))
    }
}

/// Free space for the unprivileged user on the file system holding `path`.
public func freeBytes(at path: String) -> Int64? {
    var st = statvfs()
    guard statvfs(path, &st) == 0 else { return nil }
    return Int64(st.f_bavail) * Int64(st.f_frsize)
}

/// UTC now, ISO 8601 with milliseconds.
public func isoNow() -> String {
    JournalLogHandler.timestamp(Date())
}
