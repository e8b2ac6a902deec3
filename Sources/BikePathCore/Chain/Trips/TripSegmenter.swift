/// Where trip recording stands.
public enum TripPhase: String, Sendable, Equatable {
    /// No trip; not cycling.
    case idle
    /// Cycling, but not yet long or far enough to start a trip automatically.
    case candidate
    case recording
    /// In a trip, below the auto-pause speed.
    case paused
}

/// Splits the stream of cleaned fixes into trips: automatic start after sustained
/// cycling, end after inactivity, auto-pause, and explicit start/stop markers.
struct TripSegmenter: Sendable {
    struct OpenTrip: Sendable {
        var start: SampleTime
        var startUTC: UTCTime?
        var explicit: Bool
        var stats: TripTotals
        var lastActive: SampleTime
        var lastActiveUTC: UTCTime?
        var lastFix: CleanFix?
        var moving = false
    }

    let configuration: PipelineConfiguration
    var trip: OpenTrip?
    /// The open trip's smoothed track, kept outside `trip` so copying the small trip
    /// state never shares (and then copies) a long array.
    var path: [Coordinate] = []
    /// Fixes of the cycling run that may become a trip, kept so the trip starts where
    /// the cycling started, not 30 s later.
    var candidate: [CleanFix] = []
    var candidateMeters = 0.0
    var candidateCycling = 0.0
    var lastCycling = SampleTime(nanoseconds: 0)
    /// After an explicit stop the rider is still riding: do not restart a trip behind
    /// their back until they have stopped cycling.
    var suppressAutoStart = false
    /// Metres between the trip's last two fixes (shared with road quality).
    var lastStep = 0.0

    init(configuration: PipelineConfiguration) { self.configuration = configuration }

    var phase: TripPhase {
        if let moving = trip?.moving { return moving ? .recording : .paused }
        return candidate.isEmpty ? .idle : .candidate
    }

    var inTrip: Bool { trip != nil }

    /// Feeds one cleaned fix and the current activity; appends what it produces.
    mutating func add(_ fix: CleanFix, activity: ActivityState, into out: inout [ChainOutput]) {
        if trip != nil {
            addToTrip(fix, activity: activity, into: &out)
            return
        }
        if suppressAutoStart {
            if activity != .cycling { suppressAutoStart = false }
            return
        }
        if let last = candidate.last {
            if activity == .cycling {
                candidateMeters += Geodesic.distance(last.smoothed, fix.smoothed)
                candidateCycling += max(0, fix.time.secondsSince(last.time))
            } else if fix.time.secondsSince(lastCycling) > configuration.tripStartGraceSeconds {
                candidate.removeAll(); candidateMeters = 0; candidateCycling = 0
                return
            }
        } else if activity != .cycling {
            return
        }
        if activity == .cycling { lastCycling = fix.time }
        candidate.append(fix)
        guard candidateCycling >= configuration.tripStartCyclingSeconds,
            candidateMeters >= configuration.tripStartCyclingMeters, let first = candidate.first
        else { return }
        let pending = candidate
        candidate.removeAll(); candidateMeters = 0; candidateCycling = 0
        open(at: first.time, utc: first.utc, explicit: false, into: &out)
        for f in pending { addToTrip(f, activity: .cycling, into: &out) }
    }

    mutating func open(at time: SampleTime, utc: UTCTime?, explicit: Bool, into out: inout [ChainOutput]) {
        trip = OpenTrip(
            start: time, startUTC: utc, explicit: explicit,
            stats: TripTotals(configuration: configuration),
            lastActive: time, lastActiveUTC: utc)
        out.append(.tripStarted(time, utc))
    }

    private mutating func addToTrip(_ fix: CleanFix, activity: ActivityState, into out: inout [ChainOutput]) {
        guard var t = trip else { return }
        let moving =
            fix.speed >= configuration.autoPauseBelowSpeed && activity != .motorVehicle
            && activity != .stationary
        let point = TrackPoint(
            time: fix.time, utc: fix.utc, coordinate: fix.smoothed,
            altitudeMSL: fix.altitude, speed: fix.speed, moving: moving,
            groundSpeed: fix.groundSpeed)
        t.stats.add(point)
        lastStep = t.stats.lastStep
        path.append(fix.smoothed)
        t.lastFix = fix
        t.moving = moving
        if moving { t.lastActive = fix.time; t.lastActiveUTC = fix.utc }
        trip = t
        out.append(.trackPoint(point))
        if !t.explicit && fix.time.secondsSince(t.lastActive) >= configuration.tripEndInactivitySeconds {
            close(at: t.lastActive, utc: t.lastActiveUTC, into: &out)
        }
    }

    /// Ends the open trip (explicit stop, end of input or inactivity).
    mutating func close(at time: SampleTime, utc: UTCTime?, into out: inout [ChainOutput]) {
        guard let t = trip else { return }
        let (stats, simplified) = t.stats.finished(start: t.start, end: time, path: path)
        out.append(
            .tripEnded(
                TripRecord(
                    startTime: t.start, endTime: time, startUTC: t.startUTC,
                    endUTC: utc, statistics: stats, path: simplified)))
        trip = nil
        path.removeAll()
    }

    /// Closes at the end of input: an automatic trip ends when the rider last moved, an
    /// explicit one at its last fix.
    mutating func finish(into out: inout [ChainOutput]) {
        guard let t = trip else { return }
        if t.explicit, let last = t.lastFix {
            close(at: last.time, utc: last.utc, into: &out)
        } else {
            close(at: t.lastActive, utc: t.lastActiveUTC, into: &out)
        }
    }

    mutating func marker(_ marker: Marker, at time: SampleTime, into out: inout [ChainOutput]) {
        switch marker {
        case .tripStart:
            if trip != nil { trip!.explicit = true; return }
            candidate.removeAll(); candidateMeters = 0; candidateCycling = 0
            open(at: time, utc: nil, explicit: true, into: &out)
        case .tripStop:
            close(at: time, utc: trip?.lastFix?.utc, into: &out)
            candidate.removeAll(); candidateMeters = 0; candidateCycling = 0
            suppressAutoStart = true
        }
    }

    /// The open trip's totals up to its last fix (elapsed time included, or `status`
    /// would show "0 s" for a trip under way).
    var statistics: TripStatistics? { trip.map { $0.stats.soFar(start: $0.start, now: $0.lastFix?.time ?? $0.start) } }
}
