/// What the filter chain produces. The store persists these and the CLI prints them;
/// they are plain values so that live and replay outputs can be compared for equality.

/// BBP obstacle kinds. Detected ones are candidates until the rider confirms them.
public enum ObstacleKind: String, Sendable, Codable, CaseIterable {
    case pothole, bump, irregularity, debris
}

/// BBP path status, best first.
public enum PathStatus: String, Sendable, Codable, CaseIterable {
    case optimal, medium, sufficient, requiresMaintenance
}

/// What the rider is doing at a moment.
public enum ActivityState: String, Sendable, Codable, CaseIterable {
    case stationary, cycling, walking, motorVehicle
}

/// Who reported an obstacle: the detector (a candidate for the rider to review) or the
/// rider (`bikepathd mark`, a handlebar button).
public enum ObstacleSource: String, Sendable, Codable, CaseIterable {
    case detected, rider
}

/// An obstacle: a candidate from the detector or a mark by the rider, with where and how hard.
public struct ObstacleEvent: Sendable, Equatable, Codable {
    public var time: SampleTime
    public var utc: UTCTime?
    /// Interpolated between the fixes around `time`.
    public var coordinate: Coordinate?
    /// m/s, nil when unknown.
    public var speed: Double?
    public var kind: ObstacleKind
    /// Peak absolute vertical acceleration after gravity removal, m/s².
    public var peak: Double
    /// Sum of squared vertical acceleration over the event, (m/s²)²·s.
    public var energy: Double
    /// Vertical acceleration around the event, kept for the rider's review: for a detection,
    /// the signal `peak` was measured on (the obstacle band) from
    /// `ObstacleDetectorConfiguration.windowBeforeSeconds` before the peak sample to
    /// `windowAfterSeconds` after it, so that |window[windowPeakIndex]| == peak.
    public var window: [Float]
    public var windowRate: Double
    /// Index in `window` of the sample `peak` was measured on (the impact the review plot
    /// marks); nil without a window (a rider's mark).
    public var windowPeakIndex: Int?
    public var source: ObstacleSource
    /// How hard the hit is for a rider, 0…1 (docs/chain.md, "Severity and confidence").
    public var severity: Double
    /// How likely a real obstacle rather than rider motion or road texture, 0…1.
    public var confidence: Double
    /// The detector's test statistic in units of its trigger threshold at sensitivity 1:
    /// a candidate is reported when `strength ≥ thresholdScale(kind)`. Calibration from
    /// the rider's answers (SensitivityCalibration) works on this value. 0 for rider marks.
    public var strength: Double

    /// Creates an event from its fields; the defaults fit a rider mark without a window.
    public init(
        time: SampleTime, utc: UTCTime? = nil, coordinate: Coordinate? = nil, speed: Double? = nil,
        kind: ObstacleKind, peak: Double, energy: Double, window: [Float] = [], windowRate: Double = 0,
        windowPeakIndex: Int? = nil, source: ObstacleSource = .detected, severity: Double = 0,
        confidence: Double = 0, strength: Double = 0
    ) {
        self.windowPeakIndex = windowPeakIndex
        self.source = source
        self.severity = severity
        self.confidence = confidence
        self.strength = strength
        self.time = time
        self.utc = utc
        self.coordinate = coordinate
        self.speed = speed
        self.kind = kind
        self.peak = peak
        self.energy = energy
        self.window = window
        self.windowRate = windowRate
    }
}

/// One fixed-length stretch of a trip with its roughness and status.
public struct RoadQualitySegment: Sendable, Equatable, Codable {
    public var startTime: SampleTime
    public var endTime: SampleTime
    public var start: Coordinate?
    public var end: Coordinate?
    public var lengthMeters: Double
    /// Speed-normalised roughness index (see docs/chain.md, "Road quality").
    public var roughness: Double
    public var status: PathStatus

    /// Creates a stretch from its fields.
    public init(
        startTime: SampleTime, endTime: SampleTime, start: Coordinate?, end: Coordinate?,
        lengthMeters: Double, roughness: Double, status: PathStatus
    ) {
        self.startTime = startTime
        self.endTime = endTime
        self.start = start
        self.end = end
        self.lengthMeters = lengthMeters
        self.roughness = roughness
        self.status = status
    }
}

/// A crash alarm: an impact, then the bike tilted and still (see `CrashDetectorConfiguration`).
public struct SOSEvent: Sendable, Equatable, Codable {
    /// When the alarm was raised (at most 5 s of sample time after the impact).
    public var time: SampleTime
    public var impactTime: SampleTime
    public var impactPeak: Double
    public var lastFix: GNSSFix?
    /// Vertical acceleration (m/s², world frame) from 1 s before the impact to the alarm,
    /// for whoever reviews the alarm (a false one, or what happened); at `windowRate` Hz.
    public var window: [Float]
    public var windowRate: Double

    /// Creates an alarm from its fields.
    public init(
        time: SampleTime, impactTime: SampleTime, impactPeak: Double, lastFix: GNSSFix?,
        window: [Float] = [], windowRate: Double = 0
    ) {
        self.time = time
        self.impactTime = impactTime
        self.impactPeak = impactPeak
        self.lastFix = lastFix
        self.window = window
        self.windowRate = windowRate
    }
}

/// A trip's totals: metres, seconds, m/s and grams of CO₂ avoided.
public struct TripStatistics: Sendable, Equatable, Codable {
    public var distanceMeters: Double = 0
    public var elapsedSeconds: Double = 0
    public var movingSeconds: Double = 0
    public var averageMovingSpeed: Double = 0
    public var maxSpeed: Double = 0
    public var elevationGainMeters: Double = 0
    public var co2AvoidedGrams: Double = 0
    /// Creates all-zero statistics.
    public init() {}
}

/// A cleaned fix kept as part of a trip's track.
public struct TrackPoint: Sendable, Equatable, Codable {
    public var time: SampleTime
    public var utc: UTCTime?
    public var coordinate: Coordinate
    public var altitudeMSL: Double?
    public var speed: Double
    /// The chain counted this point as riding (fast enough, not stationary or in a
    /// vehicle): distance and moving time add up only over such points.
    public var moving: Bool
    /// The receiver's own speed over ground at this fix (NMEA RMC/VTG, which receivers
    /// derive from Doppler), m/s, unsmoothed; nil when it reported none. `speed` is the
    /// chain's smoothed speed; the trip's distance integrates this one (`TripTotals`).
    public var groundSpeed: Double?
    /// Creates a point; `speed` and `groundSpeed` in m/s, `altitudeMSL` in metres.
    public init(
        time: SampleTime, utc: UTCTime?, coordinate: Coordinate, altitudeMSL: Double?, speed: Double, moving: Bool = true,
        groundSpeed: Double? = nil
    ) {
        self.time = time
        self.utc = utc
        self.coordinate = coordinate
        self.altitudeMSL = altitudeMSL
        self.speed = speed
        self.moving = moving
        self.groundSpeed = groundSpeed
    }
}

/// A finished trip: its span in sample time and UTC, its statistics and simplified path.
public struct TripRecord: Sendable, Equatable, Codable {
    public var startTime: SampleTime
    public var endTime: SampleTime
    public var startUTC: UTCTime?
    public var endUTC: UTCTime?
    public var statistics: TripStatistics
    /// The reconstructed path, simplified within the configured tolerance.
    public var path: [Coordinate]

    /// Creates a trip from its fields.
    public init(
        startTime: SampleTime, endTime: SampleTime, startUTC: UTCTime?, endUTC: UTCTime?,
        statistics: TripStatistics, path: [Coordinate]
    ) {
        self.startTime = startTime
        self.endTime = endTime
        self.startUTC = startUTC
        self.endUTC = endUTC
        self.statistics = statistics
        self.path = path
    }

    /// No fix came between its start and its end (start and stop pressed with no GNSS, a
    /// stuck button): nothing to review or publish, so the store keeps no such trip
    /// unless an event (an SOS, a mark) belongs to it.
    public var hasNoFix: Bool { path.isEmpty }
}

/// One output of the chain, in sample-time order.
public enum ChainOutput: Sendable, Equatable {
    case activity(SampleTime, ActivityState)
    case tripStarted(SampleTime, UTCTime?)
    case trackPoint(TrackPoint)
    case obstacle(ObstacleEvent)
    case roadQuality(RoadQualitySegment)
    case tripEnded(TripRecord)
    case sos(SOSEvent)
}
