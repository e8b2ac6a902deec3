/// Gathers the sentences of one receiver epoch into one fix, the way gpsd merges
/// them into a TPV report.
///
/// Epoch boundaries: gpsd starts a new reporting cycle when the time of a
/// time-carrying sentence (RMC, GGA, GLL, GNS, ZDA) changes, and sentences without
/// a time (GSA, GSV, VTG) belong to the cycle they arrive in. The assembler does
/// the same, and also starts a new epoch when the same talker repeats a sentence
/// type within one epoch (receivers that send no time while they have no fix, or
/// that repeat a stale time). A fix is emitted when the next epoch starts, or by
/// `finish()`, so the fix holds everything its epoch said.
///
/// Mode: each sentence that speaks about the fix updates it as gpsd's NMEA driver
/// does (see the `apply…` methods); a 3D fix is not downgraded to 2D by a later
/// sentence that cannot tell 2D from 3D (RMC, GLL) while an altitude is known.
struct EpochAssembler {
    struct Epoch {
        var timeOfDay: Int64?
        var day: Int?
        var mode: FixMode?
        var latitude: Double?
        var longitude: Double?
        var altitude: Double?
        var speed: Double?
        var track: Double?
        var satellitesUsedGSA: Int?
        var satellitesUsedGGA: Int?
        var satellitesSeen: Int?
        var hdop: Double?
        var pdop: Double?
        var vdop: Double?
        /// Talker (two ASCII letters) that sent each sentence type in this epoch, 0 if none.
        var talkers = SIMD8<UInt16>(repeating: 0)
        /// A time-carrying sentence arrived without a usable time.
        var hadTimelessTimedSentence = false
        var lastGSATalker: UInt16 = 0
        var lastGSVTalker: UInt16 = 0
        var receivedAt = SampleTime(nanoseconds: 0)
        var isEmpty = true
    }

    var epoch = Epoch()
    /// Date context for sentences that carry only a time of day (GGA, GLL, GNS).
    var contextDay: Int?
    var contextTimeOfDay: Int64?
    /// The previous epoch's fix, for gpsd's "keep 3D" rules.
    var previousMode: FixMode = .unknown
    var previousHadAltitude = false
    /// Satellites used, as the last GSA set said; gpsd keeps it across epochs.
    var satellitesUsedLastGSA = 0
    /// GGA time of the previous GGA: an unchanged one means a receiver holding a stale fix.
    var lastGGATime: Int64?
    var lastGGATalker: UInt16 = 0
    /// The last fix with a time and a position, to derive a speed as gpsd does.
    var lastPosition: (time: UTCTime, latitude: Double, longitude: Double)?

    /// Starts the sentence: closes the epoch in progress when this sentence belongs
    /// to a new one, and files the sentence under the epoch.
    mutating func begin(
        _ type: SentenceType, talker: UInt16, timeOfDay: Int64?, at time: SampleTime,
        into fixes: inout [GNSSFix]
    ) {
        var newEpoch = false
        if epoch.talkers[type.rawValue] == talker, type != .gsv, type != .gsa {
            newEpoch = true
        }
        if let t = timeOfDay {
            if let current = epoch.timeOfDay {
                if abs(t - current) > 10_000_000 { newEpoch = true }
            } else if epoch.hadTimelessTimedSentence {
                newEpoch = true
            }
        } else if type.carriesTime, epoch.timeOfDay != nil {
            newEpoch = true
        }
        if newEpoch { flush(into: &fixes) }
        if let t = timeOfDay {
            // gpsd's midnight rule: an hour smaller than the last one means the next day.
            if let last = contextTimeOfDay, let day = contextDay, t / 3_600_000_000_000 < last / 3_600_000_000_000 {
                contextDay = day + 1
            }
            contextTimeOfDay = t
            epoch.timeOfDay = t
            if epoch.day == nil { epoch.day = contextDay }
        } else if type.carriesTime {
            epoch.hadTimelessTimedSentence = true
        }
        if type != .gsv && type != .gsa { epoch.talkers[type.rawValue] = talker }
        epoch.receivedAt = time
        epoch.isEmpty = false
    }

    /// Sets the date the current sentence gave (RMC).
    mutating func setDay(_ day: Int) {
        contextDay = day
        epoch.day = day
    }

    /// Sets the date a ZDA gave for its own time of day, moved by one day when the
    /// epoch's time lies on the other side of midnight.
    mutating func setDay(_ day: Int, at timeOfDay: Int64) {
        contextDay = day
        contextTimeOfDay = timeOfDay
        guard let t = epoch.timeOfDay else { return }
        let halfDay: Int64 = 43_200_000_000_000
        epoch.day = t - timeOfDay > halfDay ? day - 1 : timeOfDay - t > halfDay ? day + 1 : day
    }

    /// The mode gpsd would report now, before this sentence changes it.
    var currentMode: FixMode { epoch.mode ?? previousMode }
    var altitudeKnown: Bool { epoch.altitude != nil || previousHadAltitude }

    /// Sets the mode a sentence implies, without downgrading a 3D fix to 2D while an
    /// altitude is known (gpsd's rule for RMC and GLL, which cannot tell 2D from 3D).
    mutating func setMode(_ mode: FixMode) {
        if mode != .noFix, currentMode == .threeD, altitudeKnown {
            epoch.mode = .threeD
        } else {
            epoch.mode = mode
        }
    }

    mutating func flush(into fixes: inout [GNSSFix]) {
        guard !epoch.isEmpty else { return }
        let e = epoch
        epoch = Epoch()
        let mode = e.mode ?? .unknown
        // Like gpsd's TPV: no position without a fix, no altitude without a 3D fix.
        let hasPosition = mode >= .twoD
        var time: UTCTime?
        if let t = e.timeOfDay, let day = e.day {
            time = UTCTime(nanosecondsSince1970: Int64(day) * 86_400_000_000_000 + t)
        }
        let hasNavigation = time != nil || e.mode != nil || e.speed != nil || e.track != nil
        previousMode = mode
        // gpsd keeps the last altitude in its fix even when the mode drops to 2D.
        previousHadAltitude = e.altitude != nil
        guard hasNavigation else { return }
        var speed = e.speed
        if speed == nil, hasPosition, let time, let lat = e.latitude, let lon = e.longitude {
            // gpsd derives the speed from the last reported position when the receiver gave none.
            if let last = lastPosition, time > last.time {
                let dt = Double(time.nanosecondsSince1970 - last.time.nanosecondsSince1970) / 1e9
                speed = Geodesic.vincentyDistance(last.latitude, last.longitude, lat, lon) / dt
            }
        }
        if hasPosition, let time, let lat = e.latitude, let lon = e.longitude {
            lastPosition = (time, lat, lon)
        }
        fixes.append(
            GNSSFix(
                receivedAt: e.receivedAt, time: time, mode: mode,
                latitude: hasPosition ? e.latitude : nil, longitude: hasPosition ? e.longitude : nil,
                altitudeMSL: mode == .threeD ? e.altitude : nil,
                speed: speed, track: e.track,
                satellitesUsed: e.satellitesUsedGSA ?? e.satellitesUsedGGA, satellitesSeen: e.satellitesSeen,
                hdop: e.hdop, pdop: e.pdop, vdop: e.vdop))
    }
}
