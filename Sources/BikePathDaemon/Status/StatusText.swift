import BikePathAPI
import BikePathStore
import Foundation

extension DaemonStatus {
    /// `bikepathd status` for a person: one aligned line per part, "unknown" spelled out.
    public func humanReadable() -> String {
        var lines: [(String, String)] = []
        lines.append(("daemon", "bikepathd \(version), pid \(pid), up \(Self.duration(uptimeS))"))
        lines.append(("health", degraded.isEmpty ? "ok" : "degraded: " + degraded.joined(separator: "; ")))
        var tripText = trip.state
        if let id = trip.id { tripText += " (trip \(id))" }
        if let d = trip.distanceM { tripText += String(format: ", %.2f km", d / 1000) }
        if let s = trip.durationS { tripText += ", " + Self.duration(s) }
        lines.append(("trip", tripText))
        var fix = gnss.connected ? "gpsd connected" : "gpsd not connected"
        if let lat = gnss.lastFixLat, let lon = gnss.lastFixLon {
            fix += String(format: "; last fix %.6f, %.6f", lat, lon)
            if let mode = gnss.mode { fix += " (\(mode))" }
            if let age = gnss.lastFixAgeS { fix += ", " + Self.duration(age) + " ago" }
        } else {
            fix += "; no fix yet"
        }
        lines.append(("gnss", fix))
        var imuText = imu.connected ? "connected" : "not connected"
        if let rate = imu.rateHz { imuText += String(format: ", %.1f Hz", rate) }
        lines.append(("imu", imuText))
        var storeText = "\(store.path), \(store.queueLength) \(PublishingState.pending.word)"
        if let free = store.freeBytes { storeText += ", " + Self.bytes(free) + " free" }
        lines.append(("store", storeText))
        var syncText = sync.enabled ? "on" : "off"
        if let at = sync.lastAttemptAt {
            syncText += "; last attempt \(at): " + (sync.succeeded == true ? "ok" : "failed")
            if let result = sync.lastResult { syncText += " (\(result))" }
        } else if sync.enabled {
            syncText += "; no attempt yet"
        }
        lines.append(("sync", syncText))
        let width = lines.map(\.0.count).max() ?? 0
        return lines.map { $0.0.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + $0.1 }.joined(separator: "\n")
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.down))
        if s < 60 { return "\(s) s" }
        if s < 3600 { return "\(s / 60) min \(s % 60) s" }
        return "\(s / 3600) h \(s % 3600 / 60) min"
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: "%.1f %@", value, units[unit])
    }
}

extension DaemonEvent {
    /// `bikepathd tail` for a person: time, kind, message, then the fields.
    public func humanReadable() -> String {
        var line = "\(time)  \(kind)  \(message)"
        if !fields.isEmpty { line += "  " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") }
        return line
    }

    /// The event as one JSON line.
    public func jsonLine() -> String { JSONText.snakeCaseLine(self) }
}

extension DaemonStatus {
    /// The status as one JSON line, with its schema version (`status --json`).
    public func jsonLine() -> String { JSONText.snakeCaseLine(JSONText.Versioned(self)) }
}
