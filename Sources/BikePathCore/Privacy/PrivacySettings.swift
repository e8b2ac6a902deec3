/// What the rider allows to leave the device (issue 6). Private by default:
/// every stream starts switched off and must be turned on explicitly.
public enum SyncStream: String, Sendable, Codable, CaseIterable {
    /// Trip summaries, private drafts and confirmed (published) drafts.
    case tripsAndDrafts
    case sos
    case livePosition
}

public struct Consent: Sendable, Codable, Equatable {
    public var tripsAndDrafts: Bool
    public var sos: Bool
    public var livePosition: Bool

    public init(tripsAndDrafts: Bool = false, sos: Bool = false, livePosition: Bool = false) {
        self.tripsAndDrafts = tripsAndDrafts
        self.sos = sos
        self.livePosition = livePosition
    }

    public func allows(_ stream: SyncStream) -> Bool {
        switch stream {
        case .tripsAndDrafts: tripsAndDrafts
        case .sos: sos
        case .livePosition: livePosition
        }
    }

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
    public init(seconds: Double = 30, meters: Double = 30) {
        self.seconds = seconds
        self.meters = meters
    }
}

public struct PrivacySettings: Sendable, Codable, Equatable {
    public var zones: [PrivacyZone]
    public var trim: TripTrim
    public init(zones: [PrivacyZone] = [], trim: TripTrim = TripTrim()) {
        self.zones = zones
        self.trim = trim
    }
}
