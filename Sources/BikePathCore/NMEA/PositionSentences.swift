/// RMC, GGA, GLL and GNS: the sentences that carry a position. Each parser reads and
/// checks every field it uses before it changes any state, so a rejected sentence
/// leaves no trace in the fix.
extension EpochAssembler {
    static let knotsToMetresPerSecond = 1852.0 / 3600.0

    /// `$--RMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a,m*hh`
    mutating func applyRMC(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 10 else { throw .truncated }
        let valid = f[2].first == UInt8(ascii: "A") || f[2].first == UInt8(ascii: "D")
        let timeOfDay = try f[1].timeOfDay()
        guard valid else {
            // gpsd ignores the time and date of an invalid RMC (some chips send bogus
            // ones then); the time still places the sentence in its epoch.
            begin(.rmc, talker: talker, timeOfDay: timeOfDay, at: time, into: &fixes)
            setMode(.noFix)
            return
        }
        var day: Int?
        let date = f[9]
        if !date.isEmpty {
            guard date.count == 6, let ddmmyy = try date.integer() else { throw .malformedField }
            var year = 2000 + ddmmyy % 100
            if year >= 2080 { year -= 100 }
            day = try CivilDate.validatedDay(year: year, month: ddmmyy / 100 % 100, day: ddmmyy / 10000)
        }
        let position = try f.position(at: 3)
        let speed = try f[7].decimal()
        let track = try f[8].decimal()
        if let speed, !(0...2000).contains(speed) { throw .outOfRange }
        if let track, !(-360...360).contains(track) { throw .outOfRange }
        // gpsd takes the RMC time only together with its date.
        begin(.rmc, talker: talker, timeOfDay: day == nil ? nil : timeOfDay, at: time, into: &fixes)
        if let day { setDay(day) }
        if let position {
            epoch.latitude = position.latitude
            epoch.longitude = position.longitude
            // RMC cannot tell 2D from 3D: gpsd keeps a 3D fix, and calls it 3D when the
            // last GSA used more than three satellites or an altitude is known.
            if satellitesUsedLastGSA > 3 || altitudeKnown || currentMode == .threeD {
                epoch.mode = .threeD
            } else {
                epoch.mode = .twoD
            }
        } else {
            setMode(.noFix)
        }
        if let speed { epoch.speed = speed * Self.knotsToMetresPerSecond }
        if let track { epoch.track = track }
    }

    /// `$--GGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,h.h,a.a,M,g.g,M,x.x,xxxx*hh`
    mutating func applyGGA(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 10 else { throw .truncated }
        let timeOfDay = try f[1].timeOfDay()
        let position = try f.position(at: 2)
        let quality = try f[6].integer()
        // An empty count is unknown (some exporters never fill it), not zero satellites.
        let satellites = try f[7].integer()
        let hdop = try f[8].decimal()
        let altitude = try f[9].decimal()
        if let altitude, !(-2000...100_000).contains(altitude) { throw .outOfRange }
        begin(.gga, talker: talker, timeOfDay: timeOfDay, at: time, into: &fixes)
        // A receiver repeating the last GGA time has lost lock and holds a stale fix.
        let stale = talker == lastGGATalker && timeOfDay != nil && timeOfDay == lastGGATime
        lastGGATalker = talker
        lastGGATime = timeOfDay
        if let hdop, hdop < 99 { epoch.hdop = hdop }
        epoch.satellitesUsedGGA = f[7].isEmpty ? nil : satellites
        if stale || quality == 0 && position == nil {
            setMode(.noFix)
            return
        }
        guard let position else { setMode(.noFix); return }
        var mode = applyPosition(position, altitude: altitude, satellites: satellites)
        if let satellites, satellites < 3 { mode = .noFix }
        setMode(mode)
    }

    /// GGA and GNS alike: the position, and the altitude if there is one; 3D needs
    /// the altitude and at least 4 satellites (an unknown count is taken as enough).
    private mutating func applyPosition(
        _ position: (latitude: Double, longitude: Double), altitude: Double?,
        satellites: Int?
    ) -> FixMode {
        epoch.latitude = position.latitude
        epoch.longitude = position.longitude
        guard let altitude else { return .twoD }
        epoch.altitude = altitude
        return satellites.map { $0 >= 4 } ?? true ? .threeD : .twoD
    }

    /// `$--GLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A,m*hh`
    mutating func applyGLL(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 5 else { throw .truncated }
        let position = try f.position(at: 1)
        let timeOfDay = try f[5].timeOfDay()
        let status = f[6].first
        let faa = f[7].first
        begin(.gll, talker: talker, timeOfDay: timeOfDay, at: time, into: &fixes)
        guard status == UInt8(ascii: "A"), faa != UInt8(ascii: "N"), let position else {
            setMode(.noFix)
            return
        }
        epoch.latitude = position.latitude
        epoch.longitude = position.longitude
        if altitudeKnown || satellitesUsedLastGSA > 3 {
            epoch.mode = .threeD
        } else if currentMode < .twoD || !previousHadAltitude {
            epoch.mode = .twoD
        }
    }

    /// `$--GNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,mm,nn,h.h,a.a,g.g,x.x,xxxx,s*hh`
    mutating func applyGNS(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 10 else { throw .truncated }
        let timeOfDay = try f[1].timeOfDay()
        let position = try f.position(at: 2)
        let satellites = try f[7].integer() ?? 0
        let hdop = try f[8].decimal()
        let altitude = try f[9].decimal()
        if let altitude, !(-2000...100_000).contains(altitude) { throw .outOfRange }
        begin(.gns, talker: talker, timeOfDay: timeOfDay, at: time, into: &fixes)
        let faa = f[6].first
        if faa == 0 || faa == UInt8(ascii: "N") { setMode(.noFix); return }
        let navigationStatus = f[13].first
        if navigationStatus == UInt8(ascii: "U") || navigationStatus == UInt8(ascii: "V") { return }
        if let hdop { epoch.hdop = hdop }
        epoch.satellitesUsedGGA = f[7].isEmpty ? nil : satellites
        guard let position else { setMode(.noFix); return }
        setMode(applyPosition(position, altitude: altitude, satellites: satellites))
    }
}
