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

    /// Adds the next point; distance, moving time and top speed count only when a point
    /// came before it and `point.moving`, or the receiver's speed shows the bike rolling
    /// over the step (`rolling`).
    public mutating func add(_ point: TrackPoint) {
        var step = 0.0, dt = 0.0, rolling = false
        if let previous {
            dt = max(0, point.time.secondsSince(previous.time))
            step = Self.step(from: previous, to: point, dt: dt, maxGap: configuration.dopplerDistanceMaxGapSeconds)
            rolling = Self.rolling(from: previous, to: point, dt: dt, configuration: configuration)
        }
        lastStep = step
        if (point.moving || rolling) && previous != nil {
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

    /// Metres ridden between two consecutive points: the receiver's speed over ground
    /// integrated over the step (trapezoid) when both points carry one and they are at most
    /// `maxGap` seconds apart; otherwise the geodesic distance between the smoothed
    /// positions.
    ///
    /// Why speed: the receiver derives it from the Doppler shift, which position noise does
    /// not enter, while a sum of position steps follows that noise (at 10–18 Hz the steps
    /// are 0.2–0.6 m, the noise decimetres) or, smoothed, cuts corners; on the AllTheDocks
    /// rides the smoothed positions gave −4.2…+6.6 % of the Doppler integral
    /// (docs/evaluation.md). Why the gap rule: receivers report at 1–18 Hz, so one lost
    /// epoch at 1 Hz leaves a 2 s hole. The trapezoid is exact for a constant acceleration;
    /// a rider who brakes and speeds up again at 1.5 m/s² inside the hole moves off it by at
    /// most a·dt²/4 = 1.5 m at dt = 2 s (of 10 m ridden at 5 m/s), and the error changes
    /// sign with the manoeuvre. Across a longer gap (a tunnel, a receiver restart, fixes
    /// rejected as implausible) the end speeds say little about the middle, where the rider
    /// may have stopped, so the straight line between the positions, a lower bound of the
    /// path, is taken.
    static func step(from a: TrackPoint, to b: TrackPoint, dt: Double, maxGap: Double) -> Double {
        if let va = a.groundSpeed, let vb = b.groundSpeed, dt <= maxGap {
            return (va + vb) / 2 * dt
        }
        return Geodesic.distance(a.coordinate, b.coordinate)
    }

    /// Whether the receiver's own speed shows the bike rolling over a step the chain does
    /// not (yet) count as moving: both ends carry a ground speed, at most `maxGap` apart,
    /// with a mean of at least `dopplerRollingSpeed` and not a vehicle's. The chain's
    /// moving flag waits for the activity, which holds a state 4 s before it changes; after
    /// each stop in traffic the first seconds of riding off (0 → 3 m/s: about 6 m) were
    /// left out, and creeping in a queue at 0.5–1 m/s too. On the AllTheDocks rides that was
    /// 2–7 % of the Doppler integral. Positions cannot be trusted at that pace (their
    /// jitter is what auto-pause keeps out), the Doppler speed can.
    static func rolling(from a: TrackPoint, to b: TrackPoint, dt: Double, configuration c: PipelineConfiguration) -> Bool {
        guard let va = a.groundSpeed, let vb = b.groundSpeed, dt <= c.dopplerDistanceMaxGapSeconds else { return false }
        let mean = (va + vb) / 2
        return mean >= c.dopplerRollingSpeed && mean <= c.motorVehicleAboveSpeed
    }

    /// The totals of a trip from `start` to `end` and its path simplified to
    /// `pathToleranceMeters`.
    public func finished(start: SampleTime, end: SampleTime, path: [Coordinate]) -> (TripStatistics, [Coordinate]) {
        (soFar(start: start, now: end), DouglasPeucker.simplify(path, tolerance: configuration.pathToleranceMeters))
    }

    /// The totals from `start` to `now`, computed as a closing trip's are (elapsed time,
    /// average moving speed, CO₂): for a trip under way, what `status` shows.
    public func soFar(start: SampleTime, now: SampleTime) -> TripStatistics {
        var s = statistics
        s.elapsedSeconds = max(0, now.secondsSince(start))
        s.movingSeconds = min(s.movingSeconds, s.elapsedSeconds)
        s.averageMovingSpeed = s.movingSeconds > 0 ? s.distanceMeters / s.movingSeconds : 0
        s.co2AvoidedGrams = s.distanceMeters / 1000 * configuration.co2GramsPerKilometre
        return s
    }
}
