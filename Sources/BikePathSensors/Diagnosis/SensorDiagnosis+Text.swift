import BikePathCore

extension SensorDiagnosis {
    /// The human-readable report, one fact per line.
    public var text: String {
        var lines: [String] = []
        if let g = gnss {
            lines.append("GNSS (gpsd at \(g.host):\(g.port))")
            lines.append("  reachable:  " + (g.connects > 0 ? "yes" + (g.gpsdVersion.map { ", gpsd \($0)" } ?? "") : "no"))
            if g.connects > 0 {
                lines.append("  devices:    " + (g.devices.isEmpty ? "none" : g.devices.joined(separator: ", ")))
                var fix = "  fix:        \(Self.name(g.fixMode))"
                if let used = g.satellitesUsed { fix += ", \(used) satellites used" }
                if let seen = g.satellitesSeen { fix += " / \(seen) seen" }
                if let hdop = g.hdop { fix += ", HDOP \(Self.format(hdop))" }
                if let age = gnssFixAgeSeconds { fix += ", last fix \(Self.format(age)) s ago" }
                lines.append(fix)
                lines.append(
                    "  clock:      " + (g.clockOffsetSeconds.map { "GNSS − system = \(Self.format($0)) s" } ?? "no plausible 3D fix yet"))
                lines.append(
                    "  counters:   \(g.epochs) epochs, \(g.sentences) NMEA sentences, \(g.duplicateEpochReports) duplicate TPVs, "
                        + "\(g.protocolErrors) protocol errors, \(g.disconnects) disconnects, \(g.deliveryDrops) dropped")
            }
        }
        if let i = imu {
            lines.append("IMU (libiio at \(i.uri))")
            if i.devices.isEmpty { lines.append("  devices:    none") }
            for d in i.devices {
                lines.append(
                    "  device:     \(d.id) \(d.name): \(d.channels.joined(separator: " "))"
                        + (d.ignoredChannels.isEmpty ? "" : " (ignored: \(d.ignoredChannels.joined(separator: " ")))"))
            }
            let configured = i.configuredRateHz.map { "\(Self.format($0)) Hz" } ?? "-"
            let measured = i.measuredRateHz.map { "\(Self.format($0)) Hz" } ?? "-"
            lines.append(
                "  rate:       requested \(Self.format(i.requestedRateHz)) Hz, configured \(configured), measured \(measured), \(i.bufferSamples) samples per buffer"
            )
            lines.append(
                "  counters:   \(i.samples) samples, \(i.gaps) gaps (\(i.missingSamples) missing), \(i.overruns) overruns, "
                    + "\(i.timeouts) timeouts, \(i.shortReads) short reads, \(i.readErrors) read errors, "
                    + "\(i.unknownChannels) unknown channels, \(i.unsupportedFormats) unsupported formats")
        }
        if problems.isEmpty {
            lines.append("No problems found in \(Self.format(observedSeconds)) s.")
        } else {
            lines.append("Problems:")
            for p in problems { lines.append("  [\(p.severity.rawValue)] \(p.sensor.rawValue): \(p.problem) — try: \(p.tryThis)") }
        }
        if !missingRequired.isEmpty {
            lines.append("MISSING required sensor(s): \(missingRequired.map(\.rawValue).joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }

    static func name(_ mode: FixMode) -> String {
        switch mode {
        case .unknown: "unknown"
        case .noFix: "none"
        case .twoD: "2D"
        case .threeD: "3D"
        }
    }
}
