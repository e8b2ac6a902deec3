/// Running statistics of one trip, updated per cleaned fix.
struct TripStatisticsAccumulator: Sendable {
    let configuration: PipelineConfiguration
    var statistics = TripStatistics()
    /// Elevation hysteresis (a Schmitt trigger): the reference moves only when the altitude
    /// leaves a ±threshold band around it, and only rises count, so GNSS altitude noise
    /// smaller than the band never adds up to climbing.
    var elevationReference: Double?

    init(configuration: PipelineConfiguration) { self.configuration = configuration }

    mutating func add(_ fix: CleanFix, step: Double, dt: Double, moving: Bool) {
        if moving {
            statistics.distanceMeters += step
            statistics.movingSeconds += dt
            statistics.maxSpeed = max(statistics.maxSpeed, fix.speed)
        }
        if let altitude = fix.altitude {
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

    func finished(start: SampleTime, end: SampleTime, path: [Coordinate]) -> (TripStatistics, [Coordinate]) {
        var s = statistics
        s.elapsedSeconds = max(0, end.secondsSince(start))
        s.movingSeconds = min(s.movingSeconds, s.elapsedSeconds)
        s.averageMovingSpeed = s.movingSeconds > 0 ? s.distanceMeters / s.movingSeconds : 0
        s.co2AvoidedGrams = s.distanceMeters / 1000 * configuration.co2GramsPerKilometre
        return (s, DouglasPeucker.simplify(path, tolerance: configuration.pathToleranceMeters))
    }
}
