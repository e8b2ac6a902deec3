/// GSA (mode, satellites used, DOPs) and GSV (satellites in view).
extension EpochAssembler {
    /// `$--GSA,A,3,pp,pp,…(12),p.p,h.h,v.v[,sys]*hh`
    mutating func applyGSA(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 18 else { throw .truncated }
        let fixType = try f[2].integer()
        var used = 0
        for i in 3...14 {
            if let prn = try f[i].integer(), prn > 0 { used += 1 }
        }
        let pdop = try f[15].decimal(), hdop = try f[16].decimal(), vdop = try f[17].decimal()
        begin(.gsa, talker: talker, timeOfDay: nil, at: time, into: &fixes)
        // Multi-constellation receivers send one GSA per system (GN, GL, GA, BD, …);
        // they describe one fix, so the first sets the mode and the counts add up.
        let first = epoch.satellitesUsedGSA == nil
        epoch.satellitesUsedGSA = (epoch.satellitesUsedGSA ?? 0) + used
        satellitesUsedLastGSA = epoch.satellitesUsedGSA ?? used
        if first {
            // gpsd applies its keep-3D rule to GSA too: a 3D fix with a known altitude
            // stays 3D when GSA says 2D.
            if let fixType, (1...3).contains(fixType) { setMode(FixMode(rawValue: fixType) ?? .unknown) }
            if let pdop, pdop < 99 { epoch.pdop = pdop }
            if let hdop, hdop < 99 { epoch.hdop = hdop }
            if let vdop, vdop < 99 { epoch.vdop = vdop }
        }
        epoch.lastGSATalker = talker
    }

    /// `$--GSV,n,i,tt,pp,ee,aaa,ss,…[,sig]*hh`
    mutating func applyGSV(_ f: NMEAFields, talker: UInt16, at time: SampleTime, into fixes: inout [GNSSFix]) throws(RejectReason) {
        guard f.count >= 4 else { throw .truncated }
        guard let total = try f[1].integer(), let part = try f[2].integer(), part >= 1, part <= total else {
            throw .malformedField
        }
        let inView = try f[3].integer() ?? 0
        begin(.gsv, talker: talker, timeOfDay: nil, at: time, into: &fixes)
        // Each constellation (and, in NMEA 4.1, each signal) sends its own set; the
        // first part of each set carries that set's count.
        if part == 1 { epoch.satellitesSeen = (epoch.satellitesSeen ?? 0) + inView }
        epoch.lastGSVTalker = talker
    }
}
