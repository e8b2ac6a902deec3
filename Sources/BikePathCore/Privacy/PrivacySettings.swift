/// What the rider allows to leave the device. Private by default:
/// every stream starts switched off and must be turned on explicitly.
public enum SyncStream: String, Sendable, Codable, CaseIterable {
    /// Trip summaries, private drafts and confirmed (published) drafts.
    case tripsAndDrafts
    case sos
    case livePosition
}

/// Which streams the rider allows to leave the device; all off by default.
public struct Consent: Sendable, Codable, Equatable {
    public var tripsAndDrafts: Bool
    public var sos: Bool
    public var livePosition: Bool

    /// Creates a consent; every stream is off unless given.
    public init(tripsAndDrafts: Bool = false, sos: Bool = false, livePosition: Bool = false) {
        self.tripsAndDrafts = tripsAndDrafts
        self.sos = sos
        self.livePosition = livePosition
    }

    /// True when the rider allows `stream`.
    public func allows(_ stream: SyncStream) -> Bool {
        switch stream {
        case .tripsAndDrafts: tripsAndDrafts
        case .sos: sos
        case .livePosition: livePosition
        }
    }

    /// Allows (`true`) or forbids `stream`.
    public mutating func set(_ stream: SyncStream, _ on: Bool) {
        switch stream {
        case .tripsAndDrafts: tripsAndDrafts = on
        case .sos: sos = on
        case .livePosition: livePosition = on
        }
    }
}

/// A circle (home, work) inside which no position ever leaves the device.
public struct PrivacyZone: Sendable, Codable, Equatable {
    public var name: String
    public var center: Coordinate
    public var radiusMeters: Double

    /// Radii a zone may have, from the configuration file and from
    /// `sync privacy --add-zone` alike: 1 m up to 100 km (a county; larger is
    /// not a zone but "do not share").
    public static let radiusRange: ClosedRange<Double> = 1...100_000

    /// `NAME,LAT,LON,RADIUS_M`, as `sync privacy --add-zone` takes it; nil when malformed or out of range.
    public init?(commaSeparated text: String) {
        let f = text.split(separator: ",", omittingEmptySubsequences: false).map { field in
            String(field.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        }
        guard f.count == 4, !f[0].isEmpty, let lat = Double(f[1]), let lon = Double(f[2]), let radius = Double(f[3]),
            (-90...90).contains(lat), (-180...180).contains(lon), Self.radiusRange.contains(radius)
        else { return nil }
        self.init(name: f[0], center: Coordinate(latitude: lat, longitude: lon), radiusMeters: radius)
    }

    /// Creates a zone; `radiusMeters` is not checked against `radiusRange` here.
    public init(name: String, center: Coordinate, radiusMeters: Double) {
        self.name = name
        self.center = center
        self.radiusMeters = radiusMeters
    }
}

/// How much of the start and end of every uploaded trip is cut off. A point is
/// kept only once the rider is both `seconds` and `meters` (straight line) away
/// from the start, and likewise before the end. SimRa's defaults: 30 s, 30 m.
public struct TripTrim: Sendable, Codable, Equatable {
    public var seconds: Double
    public var meters: Double
    /// Creates a trim; 30 s and 30 m by default.
    public init(seconds: Double = 30, meters: Double = 30) {
        self.seconds = seconds
        self.meters = meters
    }
}

/// The rider's privacy rules applied before anything leaves the device: zones and the trim of
/// every trip's ends.
public struct PrivacySettings: Sendable, Codable, Equatable {
    public var zones: [PrivacyZone]
    public var trim: TripTrim
    /// Creates settings; no zones and the default trim unless given.
    public init(zones: [PrivacyZone] = [], trim: TripTrim = TripTrim()) {
        self.zones = zones
        self.trim = trim
    }
}
