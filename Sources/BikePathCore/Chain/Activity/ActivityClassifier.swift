/// Step-band features of the vertical acceleration: walking shows a 1.2–2.8 Hz cadence
/// with a clear amplitude; pedalling on a bike is much smoother in that band.
struct StepFeatures: Sendable {
    var band = BandPass(highPassHz: 0.7, lowPassHz: 3)
    var sumSquares: Float = 0
    var seconds: Float = 0
    var crossings = 0
    var positive = false

    @inline(__always)
    mutating func add(_ verticalAcceleration: Float, dt: Float) {
        let y = band.step(verticalAcceleration, dt: dt)
        sumSquares += y * y * dt
        seconds += dt
        // Hysteresis of 0.3 m/s² so noise around zero does not count as steps.
        if positive { if y < -0.3 { positive = false } } else if y > 0.3 { positive = true; crossings += 1 }
    }

    /// (RMS m/s², cadence Hz) over the last ≥ 4 s, or nil until that much IMU data has
    /// accumulated. Shorter windows quantise the cadence too coarsely (one step more or
    /// less in 1 s is ±1 Hz).
    mutating func take() -> (rms: Float, cadence: Float)? {
        guard seconds >= 4 else { return nil }
        defer { sumSquares = 0; seconds = 0; crossings = 0 }
        return ((sumSquares / seconds).squareRoot(), Float(crossings) / seconds)
    }
}

/// Activity from speed, refined by the IMU's step cadence, with hysteresis: a new state
/// is reported only after it has persisted for `activityHoldSeconds`.
struct ActivityClassifier: Sendable {
    let configuration: PipelineConfiguration
    var steps = StepFeatures()
    var current: ActivityState?
    var candidate: ActivityState?
    var candidateSince = SampleTime(nanoseconds: 0)
    var lastStep: (rms: Float, cadence: Float)?

    init(configuration: PipelineConfiguration) { self.configuration = configuration }

    func instantaneous(speed: Double) -> ActivityState {
        if speed < configuration.stationaryBelowSpeed { return .stationary }
        if speed > configuration.motorVehicleAboveSpeed { return .motorVehicle }
        if speed < configuration.walkingBelowSpeed {
            // Slow: walking beside the bike, unless the IMU shows no step rhythm (slow riding).
            guard let s = lastStep else { return .walking }
            return s.rms > 0.8 && s.cadence >= 1.2 && s.cadence <= 2.8 ? .walking : .cycling
        }
        return .cycling
    }

    /// Classifies at a fix; returns the new state when the reported state changes.
    mutating func update(speed: Double, at time: SampleTime) -> ActivityState? {
        if let s = steps.take() { lastStep = s }
        let now = instantaneous(speed: speed)
        guard let current else { self.current = now; candidate = nil; return now }
        if now == current { candidate = nil; return nil }
        if candidate != now { candidate = now; candidateSince = time; return nil }
        guard time.secondsSince(candidateSince) >= configuration.activityHoldSeconds else { return nil }
        self.current = now
        candidate = nil
        return now
    }
}
