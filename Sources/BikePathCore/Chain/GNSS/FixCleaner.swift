/// A fix that passed the plausibility gates, with smoothed position and speed.
struct CleanFix: Sendable, Equatable {
    var time: SampleTime
    var utc: UTCTime?
    var raw: Coordinate
    var smoothed: Coordinate
    var altitude: Double?
    var speed: Double
    /// The receiver's own speed over ground at this fix (RMC/VTG, from Doppler), unsmoothed;
    /// nil when it reported none. Trip distance integrates it (`TripTotals`).
    var groundSpeed: Double? = nil
}

/// Counts of rejected fixes, per reason: nothing is dropped silently.
public struct FixRejections: Sendable, Equatable {
    public var noPosition = 0
    public var badDOP = 0
    public var stale = 0
    public var jump = 0
    /// Creates all-zero counts.
    public init() {}
}

/// Gates implausible fixes and smooths the rest with an alpha-beta filter on a local
/// east/north plane. The receiver's Doppler speed, when given, is smoothed separately:
/// it is far less noisy than differentiated positions.
struct FixCleaner: Sendable {
    let configuration: PipelineConfiguration
    var rejections = FixRejections()
    var plane: LocalPlane?
    var last: CleanFix?
    var lastRawTime = SampleTime(nanoseconds: 0)
    var east = 0.0, north = 0.0, ve = 0.0, vn = 0.0
    var minDelay = Double.infinity
    var consecutiveJumps = 0

    init(configuration: PipelineConfiguration) { self.configuration = configuration }

    mutating func clean(_ fix: GNSSFix) -> CleanFix? {
        guard fix.mode >= .twoD, let c = fix.coordinate, c.latitude.isFinite, c.longitude.isFinite,
            abs(c.latitude) <= 90, abs(c.longitude) <= 180
        else {
            rejections.noPosition += 1; return nil
        }
        if let hdop = fix.hdop, !(hdop <= configuration.maxHDOP) { rejections.badDOP += 1; return nil }
        if let utc = fix.time {
            let delay = fix.receivedAt.seconds - utc.secondsSince1970
            minDelay = min(minDelay, delay)
            if delay - minDelay > configuration.maxFixLatencySeconds { rejections.stale += 1; return nil }
            if let lastUTC = last?.utc, utc <= lastUTC { rejections.stale += 1; return nil }
        }
        let reported = fix.speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
        var speed = reported
        if let previous = last {
            let dt =
                fix.time.flatMap { u in previous.utc.map { (u.secondsSince1970 - $0.secondsSince1970) } }
                ?? fix.receivedAt.secondsSince(previous.time)
            guard dt > 0 else { rejections.stale += 1; return nil }
            // Measured in the local plane: no trigonometry per fix, and its scale error
            // (< 1 % within 30 km of the origin) does not matter for a plausibility gate.
            let implied: Double
            if let plane {
                let a = plane.project(previous.raw), b = plane.project(c)
                let de = b.east - a.east, dn = b.north - a.north
                implied = (de * de + dn * dn).squareRoot() / dt
            } else {
                implied = Geodesic.distance(previous.raw, c) / dt
            }
            let doppler = speed ?? 0
            let jump =
                implied > configuration.maxPlausibleSpeed
                || (implied > configuration.maxBikeSpeed && doppler < 0.7 * implied)
            if jump && consecutiveJumps < 5 {
                consecutiveJumps += 1; rejections.jump += 1; return nil
            }
            if jump || dt > 10 { plane = nil }  // persistent jump or long gap: start afresh
            consecutiveJumps = 0
            if let plane {
                let z = plane.project(c)
                let pe = east + ve * dt, pn = north + vn * dt
                let re = z.east - pe, rn = z.north - pn
                east = pe + configuration.positionAlpha * re
                north = pn + configuration.positionAlpha * rn
                ve += configuration.positionBeta / dt * re
                vn += configuration.positionBeta / dt * rn
                let filtered = (ve * ve + vn * vn).squareRoot()
                let measured = speed ?? filtered
                speed = previous.speed + configuration.speedAlpha * (measured - previous.speed)
            }
        }
        if plane == nil {
            plane = LocalPlane(origin: c)
            east = 0; north = 0; ve = 0; vn = 0
        }
        let smoothed = plane!.unproject(east: east, north: north)
        let clean = CleanFix(
            time: fix.receivedAt, utc: fix.time, raw: c, smoothed: smoothed,
            altitude: fix.altitudeMSL.flatMap { $0.isFinite ? $0 : nil }, speed: speed ?? 0,
            groundSpeed: reported)
        last = clean
        return clean
    }
}
