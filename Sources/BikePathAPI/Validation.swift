/// Field rules of docs/api.yaml, checked by the hub on every record (and usable by
/// the device before sending). Each problem names the field it is about.
public enum Validation {
    /// Device-made ids: 1–64 characters of letters, digits, '-' and '_' (UUIDs fit).
    public static func isValidID(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64
            && id.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F
            }
    }

    public static let maxPathPoints = 200_000
    public static let maxObstacles = 10_000
    public static let maxSegments = 50_000

    /// The field problems of a record body, each as "field: why" (at most 20); empty when it is
    /// valid.
    public static func problems(_ body: RecordBody) -> [String] {
        var p = Problems()
        switch body {
        case .sos(let s): check(s, &p, "")
        case .trip(let t): check(t, &p, "")
        case .draft(let d): check(d, &p, "")
        case .confirmation(let c):
            if !c.confirmed { p.add("confirmed", "must be true: a draft is published only after the rider confirmed it") }
            if let h = c.confirmedSha256,
                !(h.utf8.count == 64 && h.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) })
            {
                p.add("confirmed_sha256", "must be 64 lowercase hex digits")
            }
            check(c.draft, &p, "draft.")
        }
        return p.list
    }

    struct Problems {
        var list: [String] = []
        mutating func add(_ field: String, _ why: String) { if list.count < 20 { list.append("\(field): \(why)") } }
    }

    static func id(_ id: String, _ p: inout Problems, _ field: String) {
        if !isValidID(id) { p.add(field, "must be 1-64 characters of A-Z a-z 0-9 - _") }
    }

    static func finite(_ v: Double, _ p: inout Problems, _ field: String, min: Double = 0, max: Double = .greatestFiniteMagnitude) {
        if !v.isFinite || v < min || v > max { p.add(field, "must be a finite number in [\(min), \(max)]") }
    }

    static func position(_ pos: WirePosition?, _ p: inout Problems, _ field: String) {
        guard let pos else { return }
        finite(pos.lat, &p, field + ".lat", min: -90, max: 90)
        finite(pos.lon, &p, field + ".lon", min: -180, max: 180)
    }

    static func utc(_ v: Int64?, _ p: inout Problems, _ field: String) {
        // 2000-01-01 .. 2100-01-01: rejects GNSS week-rollover dates and zeros.
        if let v, v < 946_684_800_000_000_000 || v > 4_102_444_800_000_000_000 {
            p.add(field, "must be a UTC time in ns between 2000 and 2100")
        }
    }

    static func check(_ s: SOSUpload, _ p: inout Problems, _ prefix: String) {
        id(s.id, &p, prefix + "id")
        if s.impactTimeNs > s.timeNs { p.add(prefix + "impact_time_ns", "must not be after time_ns") }
        finite(s.impactPeak, &p, prefix + "impact_peak_mps2", max: 10_000)
        utc(s.utcNs, &p, prefix + "utc_ns")
        position(s.position, &p, prefix + "position")
    }

    static func check(_ t: TripUpload, _ p: inout Problems, _ prefix: String) {
        id(t.id, &p, prefix + "id")
        utc(t.startUtcNs, &p, prefix + "start_utc_ns")
        utc(t.endUtcNs, &p, prefix + "end_utc_ns")
        if let a = t.startUtcNs, let b = t.endUtcNs, b < a { p.add(prefix + "end_utc_ns", "must not be before start_utc_ns") }
        let s = t.statistics, f = prefix + "statistics."
        finite(s.distanceM, &p, f + "distance_m", max: 10_000_000)
        finite(s.elapsedS, &p, f + "elapsed_s", max: 10_000_000)
        finite(s.movingS, &p, f + "moving_s", max: 10_000_000)
        finite(s.avgMovingSpeed, &p, f + "avg_moving_speed_mps", max: 200)
        finite(s.maxSpeed, &p, f + "max_speed_mps", max: 200)
        finite(s.elevationGainM, &p, f + "elevation_gain_m", max: 100_000)
        finite(s.co2AvoidedG, &p, f + "co2_avoided_g", max: 10_000_000)
        if s.movingS > s.elapsedS + 1 { p.add(f + "moving_s", "must not exceed elapsed_s") }
    }

    static func check(_ d: DraftUpload, _ p: inout Problems, _ prefix: String) {
        id(d.id, &p, prefix + "id")
        check(d.trip, &p, prefix + "trip.")
        if let s = d.pathStatus, !RoadSegmentUpload.statuses.contains(s) {
            p.add(prefix + "path_status", "must be one of \(RoadSegmentUpload.statuses.sorted())")
        }
        if d.path.count > maxPathPoints { p.add(prefix + "path", "at most \(maxPathPoints) points") }
        for (i, pair) in d.path.enumerated() {
            guard pair.count == 2 else { p.add(prefix + "path[\(i)]", "must be [lat, lon]"); continue }
            position(WirePosition(lat: pair[0], lon: pair[1]), &p, prefix + "path[\(i)]")
        }
        if d.obstacles.count > maxObstacles { p.add(prefix + "obstacles", "at most \(maxObstacles)") }
        for (i, o) in d.obstacles.enumerated() {
            let f = prefix + "obstacles[\(i)]."
            id(o.id, &p, f + "id")
            if !ObstacleUpload.kinds.contains(o.kind) { p.add(f + "kind", "must be one of \(ObstacleUpload.kinds.sorted())") }
            if o.origin != "detected" && o.origin != "rider" { p.add(f + "origin", "must be detected or rider") }
            if let s = o.offsetS { finite(s, &p, f + "offset_s", max: 10_000_000) }
            position(o.position, &p, f + "position")
        }
        if d.roadQuality.count > maxSegments { p.add(prefix + "road_quality", "at most \(maxSegments)") }
        for (i, r) in d.roadQuality.enumerated() {
            let f = prefix + "road_quality[\(i)]."
            finite(r.startOffsetS, &p, f + "start_offset_s", max: 10_000_000)
            finite(r.endOffsetS, &p, f + "end_offset_s", max: 10_000_000)
            if r.endOffsetS < r.startOffsetS { p.add(f + "end_offset_s", "must not be before start_offset_s") }
            position(r.start, &p, f + "start")
            position(r.end, &p, f + "end")
            finite(r.lengthM, &p, f + "length_m", max: 1_000_000)
            finite(r.roughness, &p, f + "roughness", max: 1_000_000)
            if !RoadSegmentUpload.statuses.contains(r.status) {
                p.add(f + "status", "must be one of \(RoadSegmentUpload.statuses.sorted())")
            }
        }
    }

    /// The field problems of a live position, each as "field: why" (at most 20); empty when it
    /// is valid.
    public static func problems(_ live: LivePositionUpload) -> [String] {
        var p = Problems()
        position(live.position, &p, "position")
        utc(live.utcNs, &p, "utc_ns")
        if let s = live.speed { finite(s, &p, "speed_mps", max: 200) }
        return p.list
    }
}
