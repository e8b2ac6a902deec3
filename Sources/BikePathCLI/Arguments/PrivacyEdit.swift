import BikePathCore
import BikePathDaemon

/// `sync privacy`'s changes to the rider's privacy settings (docs/sync.md):
/// zones added (a zone of the same name is replaced) and removed, and the trim.
public struct PrivacyEdit: Sendable {
    /// `NAME,LAT,LON,RADIUS_M`
    public var addZones: [String]
    public var removeZones: [String]
    public var trimSeconds: Double?
    public var trimMeters: Double?

    public init(addZones: [String] = [], removeZones: [String] = [], trimSeconds: Double? = nil, trimMeters: Double? = nil) {
        self.addZones = addZones
        self.removeZones = removeZones
        self.trimSeconds = trimSeconds
        self.trimMeters = trimMeters
    }

    public var isEmpty: Bool { addZones.isEmpty && removeZones.isEmpty && trimSeconds == nil && trimMeters == nil }

    /// `settings` with the edit applied; nothing of it when any part is wrong.
    public func applied(to settings: PrivacySettings) throws(PrivacyEditError) -> PrivacySettings {
        var p = settings
        for text in addZones {
            guard let zone = PrivacyZone(commaSeparated: text) else { throw .zone(text) }
            p.zones.removeAll { $0.name == zone.name }
            p.zones.append(zone)
        }
        p.zones.removeAll { removeZones.contains($0.name) }
        if let trimSeconds {
            guard trimSeconds >= 0, trimSeconds.isFinite else { throw .trim("--trim-seconds") }
            p.trim.seconds = trimSeconds
        }
        if let trimMeters {
            guard trimMeters >= 0, trimMeters.isFinite else { throw .trim("--trim-meters") }
            p.trim.meters = trimMeters
        }
        return p
    }
}

/// A privacy change the rider typed that is not one (the CLI shows it as a usage error).
public enum PrivacyEditError: CommandArgumentError, Equatable {
    case zone(String)
    case trim(String)

    public var description: String {
        switch self {
        case .zone(let text):
            "a zone is NAME,LAT,LON,RADIUS_M with a radius of "
                + "\(Int(PrivacyZone.radiusRange.lowerBound))–\(Int(PrivacyZone.radiusRange.upperBound)) m: \(text)"
        case .trim(let flag): "\(flag) must be >= 0"
        }
    }
}
