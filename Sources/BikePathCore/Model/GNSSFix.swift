/// gpsd's fix modes (TPV `mode`).
public enum FixMode: Int, Sendable, Codable, Comparable {
    case unknown = 0, noFix = 1, twoD = 2, threeD = 3
    /// Orders modes by quality: `threeD` is the best.
    public static func < (a: FixMode, b: FixMode) -> Bool { a.rawValue < b.rawValue }
}

/// One navigation solution for one receiver epoch, the equivalent of a gpsd TPV report.
/// A value the receiver did not give is nil, never zero.
public struct GNSSFix: Sendable, Equatable, Codable {
    /// When the last sentence of the epoch was received (monotonic, shared with the IMU).
    public var receivedAt: SampleTime
    public var time: UTCTime?
    public var mode: FixMode
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees true.
    public var track: Double?
    public var satellitesUsed: Int?
    public var satellitesSeen: Int?
    public var hdop: Double?
    public var pdop: Double?
    public var vdop: Double?

    /// Creates a fix; what the receiver did not give stays nil.
    public init(
        receivedAt: SampleTime, time: UTCTime? = nil, mode: FixMode = .unknown,
        latitude: Double? = nil, longitude: Double? = nil, altitudeMSL: Double? = nil,
        speed: Double? = nil, track: Double? = nil, satellitesUsed: Int? = nil,
        satellitesSeen: Int? = nil, hdop: Double? = nil, pdop: Double? = nil, vdop: Double? = nil
    ) {
        self.receivedAt = receivedAt
        self.time = time
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMSL = altitudeMSL
        self.speed = speed
        self.track = track
        self.satellitesUsed = satellitesUsed
        self.satellitesSeen = satellitesSeen
        self.hdop = hdop
        self.pdop = pdop
        self.vdop = vdop
    }

    /// Both coordinates, when the fix has a position.
    public var coordinate: Coordinate? {
        guard let latitude, let longitude else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}

/// A WGS 84 position in degrees.
public struct Coordinate: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Creates a position from latitude and longitude in degrees.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
