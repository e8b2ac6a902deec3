import BikePathAPI
import Foundation

extension DaemonConfiguration {
    /// The effective configuration as TOML, in the file's section order, every
    /// key written out (`bikepathd config show`). Parsing it gives back `self`
    /// (tested), so it can be saved as a starting file.
    public func tomlText() -> String {
        var out = ""
        func section(_ name: String, _ keys: [(String, String)]) {
            out += "[\(name)]\n"
            for (key, value) in keys { out += "\(key) = \(value)\n" }
            out += "\n"
        }
        section("gnss", [("host", q(gnss.host)), ("port", "\(gnss.port)")])
        section("imu", [("uri", q(imu.uri)), ("device", q(imu.device)), ("rate_hz", n(imu.rateHz))])
        section("store", [("path", q(store.path)), ("budget_mb", n(store.budgetMB)),
                          ("commit_interval_s", n(store.commitIntervalS))])
        section("trip", [("start_after_s", n(trip.startAfterS)), ("start_after_m", n(trip.startAfterM)),
                         ("end_after_s", n(trip.endAfterS))])
        section("obstacles", [("enabled", "\(obstacles.enabled)"), ("min_speed_mps", n(obstacles.minSpeedMps)),
                              ("threshold_sigmas", n(obstacles.thresholdSigmas)),
                              ("min_peak_mps2", n(obstacles.minPeakMps2)), ("merge_m", n(obstacles.mergeM)),
                              ("wheelbase_m", n(obstacles.wheelbaseM)),
                              ("review_budget", "\(obstacles.reviewBudget)")])
        section("crash", [("enabled", "\(crash.enabled)")])
        let zones = privacy.zones.map {
            "{ name = \(q($0.name)), lat = \(n($0.lat)), lon = \(n($0.lon)), radius_m = \(n($0.radiusM)) }"
        }
        section("privacy", [("zones", "[" + zones.joined(separator: ", ") + "]"),
                            ("trim_s", n(privacy.trimS)), ("trim_m", n(privacy.trimM))]
                            // Absent means "the rider decides": shown only when the file sets it.
                            + [("share_trips", privacy.shareTrips), ("share_sos", privacy.shareSOS),
                               ("share_live_position", privacy.shareLivePosition)].compactMap { key, value in value.map { (key, "\($0)") } })
        section("sync", [("hub_url", q(sync.hubURL)), ("token_file", q(sync.tokenFile)),
                         ("ca_file", q(sync.caFile)), ("interval_s", n(sync.intervalS))])
        section("milestones", [("every_km", n(milestones.everyKm))])
        section("log", [("level", q(log.level.rawValue))])
        section("status", [("socket", q(status.socket))])
        section("review", [("listen", q(review.listen)), ("tiles_url", q(review.tilesURL)),
                           ("tiles_attribution", q(review.tilesAttribution)), ("mbtiles", q(review.mbtiles))])
        out.removeLast()
        return out
    }

    /// The effective configuration as JSON, with the file's key names and the schema version.
    public func jsonText() -> String {
        // Encoding plain structs of strings and numbers cannot fail.
        (try? JSONText.document(JSONText.Versioned(self))) ?? "{}"
    }
}

/// A TOML basic string.
private func q(_ s: String) -> String {
    var out = "\""
    for scalar in s.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        case _ where scalar.value < 0x20 || scalar.value == 0x7F:
            out += String(format: "\\u%04X", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// A TOML float that reads back as exactly the same Double.
private func n(_ d: Double) -> String {
    if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
    return "\(d)"
}
