import BikePathCore

/// `diagnose --json`'s form of the GNSS status (docs/json.md, schema 1): the
/// synthesized form wrote a sample time as `{"nanoseconds": …}`, a UTC time as
/// nanoseconds since 1970 and the fix with Swift's field names.
extension GNSSStatus {
    private enum JSONKey: String, CodingKey {
        case host, port, connected, gpsdVersion = "gpsd_version", devices, fixMode = "fix_mode"
        case lastFixReceivedTime = "last_fix_received_time_s", lastFixUTC = "last_fix_utc", lastFix = "last_fix"
        case satellitesUsed = "satellites_used", satellitesSeen = "satellites_seen", hdop
        case clockOffset = "clock_offset_s", epochs, duplicateEpochReports = "duplicate_epoch_reports", sentences
        case protocolErrors = "protocol_errors", implausibleFixTimes = "implausible_fix_times", connects
        case connectFailures = "connect_failures", disconnects, deliveryDrops = "delivery_drops", lastError = "last_error"
    }

    private enum FixKey: String, CodingKey {
        case lat, lon, altitude = "alt_m", speed = "speed_mps", track = "track_deg", mode, hdop, pdop, vdop
    }

    /// `fix_mode` and a fix's `mode` as words, as gpsd's documentation names them.
    static func word(_ mode: FixMode) -> String {
        switch mode {
        case .unknown: "unknown"
        case .noFix: "no_fix"
        case .twoD: "2d"
        case .threeD: "3d"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: JSONKey.self)
        try c.encode(host, forKey: .host)
        try c.encode(port, forKey: .port)
        try c.encode(connected, forKey: .connected)
        try c.encodeIfPresent(gpsdVersion, forKey: .gpsdVersion)
        try c.encode(devices, forKey: .devices)
        try c.encode(Self.word(fixMode), forKey: .fixMode)
        try c.encodeIfPresent(lastFixReceivedAt?.seconds, forKey: .lastFixReceivedTime)
        try c.encodeIfPresent(lastFixTime.map { UTCCivilTime($0).iso8601Milliseconds }, forKey: .lastFixUTC)
        if let lastFix {
            var f = c.nestedContainer(keyedBy: FixKey.self, forKey: .lastFix)
            try f.encodeIfPresent(lastFix.latitude, forKey: .lat)
            try f.encodeIfPresent(lastFix.longitude, forKey: .lon)
            try f.encodeIfPresent(lastFix.altitudeMSL, forKey: .altitude)
            try f.encodeIfPresent(lastFix.speed, forKey: .speed)
            try f.encodeIfPresent(lastFix.track, forKey: .track)
            try f.encode(Self.word(lastFix.mode), forKey: .mode)
            try f.encodeIfPresent(lastFix.hdop, forKey: .hdop)
            try f.encodeIfPresent(lastFix.pdop, forKey: .pdop)
            try f.encodeIfPresent(lastFix.vdop, forKey: .vdop)
        }
        try c.encodeIfPresent(satellitesUsed, forKey: .satellitesUsed)
        try c.encodeIfPresent(satellitesSeen, forKey: .satellitesSeen)
        try c.encodeIfPresent(hdop, forKey: .hdop)
        try c.encodeIfPresent(clockOffsetSeconds, forKey: .clockOffset)
        try c.encode(epochs, forKey: .epochs)
        try c.encode(duplicateEpochReports, forKey: .duplicateEpochReports)
        try c.encode(sentences, forKey: .sentences)
        try c.encode(protocolErrors, forKey: .protocolErrors)
        try c.encode(implausibleFixTimes, forKey: .implausibleFixTimes)
        try c.encode(connects, forKey: .connects)
        try c.encode(connectFailures, forKey: .connectFailures)
        try c.encode(disconnects, forKey: .disconnects)
        try c.encode(deliveryDrops, forKey: .deliveryDrops)
        try c.encodeIfPresent(lastError, forKey: .lastError)
    }
}
