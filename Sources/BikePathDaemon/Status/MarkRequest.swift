import BikePathAPI
import BikePathCore

/// The daemon's answer to `mark KIND` on the status socket (`bikepathd mark`): the
/// rider-reported obstacle it stored, or why it stored nothing.
public struct MarkReply: Sendable, Equatable, Codable {
    /// Why nothing was stored (no trip under way, bad kind, …); nil when stored.
    public var error: String?
    public var kind: String?
    /// The trip the mark belongs to.
    public var trip: String?
    /// The mark's sample time, seconds on the daemon's monotonic clock.
    public var timeS: Double?
    /// Where it was stored (the first fix after the press); nil when no fix came yet.
    public var lat: Double?
    public var lon: Double?
    public var speedMps: Double?

    /// Creates a reply; a stored mark has no `error`.
    public init(
        error: String? = nil, kind: String? = nil, trip: String? = nil, timeS: Double? = nil,
        lat: Double? = nil, lon: Double? = nil, speedMps: Double? = nil
    ) {
        self.error = error
        self.kind = kind
        self.trip = trip
        self.timeS = timeS
        self.lat = lat
        self.lon = lon
        self.speedMps = speedMps
    }

    /// A reply saying nothing was stored, and why.
    public static func failure(_ message: String) -> MarkReply { MarkReply(error: message) }

    /// What a bare `mark` means: a pothole, the obstacle a rider most wants on the map
    /// and the one a one-button handlebar mount reports.
    public static let defaultKind = ObstacleKind.pothole

    /// `bikepathd mark` for a person.
    public func humanReadable() -> String {
        if let error { return "not marked: \(error)" }
        var text = "marked \(kind ?? "obstacle")"
        if let trip { text += " in trip \(trip)" }
        if let lat, let lon {
            text += " at \(String(format: "%.6f, %.6f", lat, lon))"
            if let speedMps { text += String(format: " (%.1f km/h)", speedMps * 3.6) }
        } else {
            text += "; no fix yet: it is placed at the next fix"
        }
        return text
    }

    /// The reply as one JSON line (`mark --json`, the socket's answer).
    public func jsonLine() -> String { JSONText.snakeCaseLine(JSONText.Versioned(self)) }
}

/// `mark [KIND]` on the status socket: the kind named, pothole when none is.
enum MarkRequest {
    static let defaultKind = MarkReply.defaultKind

    /// nil when `request` is not a mark request; otherwise the kind or a reply explaining the bad one.
    static func parse(_ request: String) -> Result<ObstacleKind, MarkReplyError>? {
        let words = request.split(separator: " ", omittingEmptySubsequences: true)
        guard words.first == "mark", words.count <= 2 else { return nil }
        guard words.count == 2 else { return .success(defaultKind) }
        guard let kind = ObstacleKind(rawValue: String(words[1])) else {
            return .failure(
                MarkReplyError(
                    reply: .failure(
                        "unknown obstacle kind \"\(words[1])\"; one of \(ObstacleKind.allCases.map(\.rawValue).joined(separator: ", "))")))
        }
        return .success(kind)
    }
}

struct MarkReplyError: Error { var reply: MarkReply }

/// How the daemon takes a mark: it answers exactly once through `reply`, possibly later
/// (the mark is placed at the next fix) and from any thread.
public typealias MarkHandler = @Sendable (ObstacleKind, _ reply: @escaping @Sendable (MarkReply) -> Void) -> Void

/// Sample times for labels: the current one, but each label at least 1 ns after the
/// previous, so two presses before the next record (two buttons, a double press) stay two
/// obstacles (events are unique by time).
public struct LabelClock: Sendable {
    private var last: SampleTime?

    /// Creates a clock that has given no time yet.
    public init() {}

    /// The time for a label put into the input at sample time `now`.
    public mutating func time(at now: SampleTime) -> SampleTime {
        let t = last.map { max(now, SampleTime(nanoseconds: $0.nanoseconds + 1)) } ?? now
        last = t
        return t
    }
}
