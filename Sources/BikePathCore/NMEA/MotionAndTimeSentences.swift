/// VTG (speed and track) and ZDA (date and time).
extension EpochAssembler {
    /// `$--VTG,t.t,T,m.m,M,k.k,N,s.s,K,m*hh`
    mutating func applyVTG(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 6 else { throw .truncated }
        let track = try f[1].decimal()
        let knots = try f[5].decimal()
        if let knots, !(0...2000).contains(knots) { throw .outOfRange }
        if let track, !(-360...360).contains(track) { throw .outOfRange }
        begin(.vtg, talker: talker, timeOfDay: nil, at: time, into: &fixes)
        // gpsd uses VTG only with both values, and not when the mode says "not valid"
        // or "estimated".
        guard let track, let knots else { return }
        let mode = f[9].first
        if mode == UInt8(ascii: "N") || mode == UInt8(ascii: "E") { return }
        epoch.track = track
        epoch.speed = knots * Self.knotsToMetresPerSecond
    }

    /// `$--ZDA,hhmmss.ss,dd,mm,yyyy,zh,zm*hh`
    mutating func applyZDA(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 5 else { throw .truncated }
        let timeOfDay = try f[1].timeOfDay()
        let d = try f[2].integer(), m = try f[3].integer(), y = try f[4].integer()
        var day: Int?
        if let d, let m, let y {
            day = try CivilDate.validatedDay(year: y, month: m, day: d)
        } else if d != nil || m != nil || y != nil {
            throw .malformedField
        }
        // Like gpsd, a ZDA whose time differs from the cycle's starts an epoch of its
        // own (ac12 sends ZDA a second ahead of its RMC and GGA).
        begin(.zda, talker: talker, timeOfDay: day == nil ? nil : timeOfDay, at: time, into: &fixes)
        if let day, let timeOfDay { setDay(day, at: timeOfDay) }
    }
}
