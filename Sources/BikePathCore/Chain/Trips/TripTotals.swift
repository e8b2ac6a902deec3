/// A trip's totals, computed one way for every trip: the chain feeds its track
/// points as they come, and the store feeds the stored points of a trip that a
/// power cut left open (`BikePathStore/Recovery.swift`), so both close a ride
/// with the same geodesic distance, elevation hysteresis, Douglas–Peucker path
/// and CO₂ factor.
public struct TripTotals: Sendable {
    public let configuration: PipelineConfiguration
    public private(set) var statistics = TripStatistics()
    /// Metres between the last two points (the chain's road quality uses it).
    public private(set) var lastStep = 0.0
    /// When the rider last moved, and the UTC then: an automatic trip ends there.
    public private(set) var lastMoving: (time: SampleTime, utc: UTCTime?)?
    private var previous: TrackPoint?
    /// Elevation hysteresis (a Schmitt trigger): the reference moves only when the altitude
    /// leaves a ±threshold band around it, and only rises count, so GNSS altitude noise
    /// smaller than the band never adds up to climbing.
    private var elevationReference: Double?

    /// Creates empty totals; the configuration gives the elevation band, path tolerance and CO₂
    /// factor.
    public init(configuration: PipelineConfiguration) { self.configuration = configuration }

    /// Adds the next point; distance, moving time and top speed count only when
    /// `point.moving` and a point came before it.
    public mutating func add(_ point: TrackPoint) {
        var step = 0.0, dt = 0.0
        if let previous {
            step = Geodesic.distance(previous.coordinate, point.coordinate)
            dt = max(0, point.time.secondsSince(previous.time))
        }
        lastStep = step
        if point.moving && previous != nil {
            statistics.distanceMeters += step
            statistics.movingSeconds += dt
            statistics.maxSpeed = max(statistics.maxSpeed, point.speed)
        }
        if point.moving { lastMoving = (point.time, point.utc) }
        previous = point
        if let altitude = point.altitudeMSL {
            if let reference = elevationReference {
                if reference - altitude >= configuration.elevationHysteresisMeters {
                    elevationReference = altitude
                } else if altitude - reference >= configuration.elevationHysteresisMeters {
                    statistics.elevationGainMeters += altitude - reference
                    elevationReference = altitude
                }
            } else {
                elevationReference = altitude
            }
        }
    }

    /// The totals of a trip from `start` to `end` and its path simplified to
    /// `pathToleranceMeters`.
    public func finished(start: SampleTime, end: SampleTime, path: [Coordinate]) -> (TripStatistics, [Coordinate]) {
        var s = statistics
        s.elapsedSeconds = max(0, end.secondsSince(start))
        s.movingSeconds = min(s.movingSeconds, s.elapsedSeconds)
        s.averageMovingSpeed = s.movingSeconds > 0 ? s.distanceMeters / s.movingSeconds : 0
        s.co2AvoidedGrams = s.distanceMeters / 1000 * configuration.co2GramsPerKilometre
        return (s, DouglasPeucker.simplify(path, tolerance: configuration.pathToleranceMeters))
    }
}
