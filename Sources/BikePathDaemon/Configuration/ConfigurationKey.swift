import BikePathCore
import Foundation

/// One key of bikepathd.toml, declared once (`ConfigurationKey.all`): its section and
/// name, how it is read (type, range, check), where it lives in a `DaemonConfiguration`,
/// and when SIGHUP applies it, and the command-line flag that overrides it. The file reader,
/// the flags (`merging(_:)`), `config show` (TOML and JSON), the reload's report and the
/// documentation test all walk the same list, so a key added here is read, overridden,
/// shown, reported and checked against docs/configuration.md at once. Code names a key by
/// its field (`ConfigurationKey[\.sync.hubURL].path`), never by spelling its path.
public struct ConfigurationKey: Sendable {
    public let section: String
    public let name: String
    public let reload: ReloadEffect
    /// What the key means: the line docs/configuration.md gives it (a test holds the page to it).
    public let doc: String
    /// The `DaemonConfiguration` field the key sets: how code names the key.
    let field: PartialKeyPath<DaemonConfiguration> & Sendable
    /// The command-line flag that overrides the key; nil when only the file sets it.
    public let flag: Flag?
    let read: @Sendable (inout TableReader, inout DaemonConfiguration) -> Void
    /// The key's value; nil when the file leaves it unset and nothing is shown.
    let value: @Sendable (DaemonConfiguration) -> ConfigurationValue?
    /// Sets the key from a shown value (`config show --json` read back); false when the value has the wrong type.
    let assign: @Sendable (inout DaemonConfiguration, ConfigurationValue) -> Bool
    /// Why a value of the key's type is refused (its range or check), the rule the file reader
    /// applies; what a command-line flag for the key is checked with (`merging(_:)`).
    let check: @Sendable (ConfigurationValue) -> String?

    /// `section.name`, as messages and docs/configuration.md spell it.
    public var path: String { section + "." + name }

    /// The key's default: its field in `DaemonConfiguration()`, the one place defaults are written;
    /// nil when an absent key means something of its own (`privacy.share_*`: the rider decides).
    public var defaultValue: ConfigurationValue? { value(DaemonConfiguration()) }

    /// A command-line flag that overrides a key (`--NAME VALUE`), checked by the key's rule.
    public struct Flag: Sendable {
        /// The long name, without its dashes.
        public let name: String
        /// A path typed on the command line is relative to the working directory, as with any
        /// Unix tool; the file's paths must be absolute.
        let isPath: Bool

        static func value(_ name: String) -> Self { Self(name: name, isPath: false) }
        static func path(_ name: String) -> Self { Self(name: name, isPath: true) }
    }

    /// When a SIGHUP's new value takes effect.
    public enum ReloadEffect: Sendable {
        /// The live sensors are reconfigured at once.
        case sensors
        /// The chain takes it when no trip is under way (a new chain would lose the trip's state).
        case chain
        /// Read once at start (the store and what it is opened with, sync, logging, the sockets).
        case restart
    }

    /// The file's sections, in the order `config show` writes them.
    public static let sections = [
        "gnss", "imu", "store", "trip", "obstacles", "crash", "privacy", "sync", "milestones", "log", "status", "review",
    ]

    /// Every key, in `config show`'s order within each section.
    public static let all: [ConfigurationKey] = [
        .string("gnss", "host", \.gnss.host, check: Checks.nonEmpty, flag: .value("gpsd-host"), reload: .sensors, doc: "gpsd host"),
        .int("gnss", "port", \.gnss.port, range: 1...65535, flag: .value("gpsd-port"), reload: .sensors, doc: "gpsd port"),
        .string("imu", "uri", \.imu.uri, check: Checks.iioURI, flag: .value("iio-uri"), reload: .sensors, doc: "libiio context"),
        .string(
            "imu", "device", \.imu.device, flag: .value("iio-device"), reload: .sensors,
            doc: "IIO device name or id; empty: the first device with accelerometer channels"),
        .double("imu", "rate_hz", \.imu.rateHz, range: 1...4000, flag: .value("imu-rate"), reload: .sensors, doc: "IMU sampling frequency"),
        .string(
            "store", "path", \.store.path, check: Checks.absolutePath, flag: .path("db"), reload: .restart,
            doc: "SQLite buffer (under systemd's `StateDirectory`)"),
        .double(
            "store", "budget_mb", \.store.budgetMB, range: 16...1_048_576, reload: .restart,
            doc: "disk budget; retention deletes the least needed data past it"),
        .double(
            "store", "commit_interval_s", \.store.commitIntervalS, range: 0.05...60, reload: .restart,
            doc: "longest time between commits: what a power cut can lose"),
        .double("trip", "start_after_s", \.trip.startAfterS, range: 0...3600, reload: .chain, doc: "cycling time before a trip starts"),
        .double(
            "trip", "start_after_m", \.trip.startAfterM, range: 0...100_000, reload: .chain, doc: "cycling distance before a trip starts"),
        .double("trip", "end_after_s", \.trip.endAfterS, range: 10...86_400, reload: .chain, doc: "time without cycling that ends a trip"),
        .bool("obstacles", "enabled", \.obstacles.enabled, reload: .chain, doc: "obstacle detection on/off"),
        .double("obstacles", "min_speed_mps", \.obstacles.minSpeedMps, range: 0...20, reload: .chain, doc: "no detection below this speed"),
        .double(
            "obstacles", "threshold_sigmas", \.obstacles.thresholdSigmas, range: 0.5...20, reload: .chain,
            doc:
                "a candidate's peak must reach this many RMS of the road texture in the 2 s around it (docs/chain.md, \"Candidates\"; `bikepathd detect` on car data triggers at 2 σ, docs/evaluation.md)"
        ),
        .double(
            "obstacles", "min_peak_mps2", \.obstacles.minPeakMps2, range: 0...100, reload: .chain,
            doc:
                "smallest peak reported, m/s² in the obstacle band (above 1 Hz); ×0.7 when the rear wheel's echo is seen; on a smooth road a hit 7 σ out of the texture and ≥ 8 m/s² is kept below it (docs/chain.md, \"Candidates\")"
        ),
        .double(
            "obstacles", "merge_m", \.obstacles.mergeM, range: 0...1000, reload: .chain, doc: "detections closer than this are one obstacle"
        ),
        .double(
            "obstacles", "wheelbase_m", \.obstacles.wheelbaseM, range: 0.5...2.5, reload: .chain,
            doc: "front-to-rear axle distance: the rear wheel's echo of a hit is looked for `wheelbase / speed` later"),
        // Read when the store opens (`StoreConfiguration.reviewBudget`), as milestones are.
        .int(
            "obstacles", "review_budget", \.obstacles.reviewBudget, range: 0...1000, reload: .restart,
            doc:
                "detected candidates a draft asks the rider about, ranked by severity × confidence; the rest are held back (stored, counted toward road quality, not asked, not published). The rider's own marks are always shown. See \"Review budget\" below"
        ),
        .bool(
            "crash", "enabled", \.crash.enabled, reload: .chain,
            doc:
                "crash detection and SOS; opt-in. Needs `sync.hub_url` and is refused with `privacy.share_sos = false`; an SOS leaves only with the rider's SOS consent (`bikepathd sync consent sos on`)"
        ),
        .zones,
        .double(
            "privacy", "trim_s", \.privacy.trimS, range: 0...3600, reload: .restart, doc: "cut from both ends of every uploaded trip (time)"
        ),
        .double(
            "privacy", "trim_m", \.privacy.trimM, range: 0...10_000, reload: .restart,
            doc: "cut from both ends of every uploaded trip (straight-line distance)"),
        // Absent means "the rider decides": shown only when the file sets them.
        .optionalBool(
            "privacy", "share_trips", \.privacy.shareTrips, reload: .restart,
            doc: "`false` forbids syncing trips and drafts whatever the rider says; absent: the rider decides"),
        .optionalBool(
            "privacy", "share_sos", \.privacy.shareSOS, reload: .restart,
            doc: "`false` forbids sending SOS messages (refused with `crash.enabled = true`)"),
        .optionalBool(
            "privacy", "share_live_position", \.privacy.shareLivePosition, reload: .restart,
            doc: "`false` forbids sending the live position"),
        .string(
            "sync", "hub_url", \.sync.hubURL, check: Checks.hubURL, flag: .value("hub"), reload: .restart,
            doc: "upstream hub; empty: no sync"),
        .string(
            "sync", "token_file", \.sync.tokenFile, check: Checks.absolutePath, flag: .path("token-file"), reload: .restart,
            doc: "file holding the hub token"),
        .string(
            "sync", "ca_file", \.sync.caFile, check: Checks.optionalAbsolutePath, flag: .path("ca-file"), reload: .restart,
            doc: "extra CA certificate for a self-hosted hub"),
        .double("sync", "interval_s", \.sync.intervalS, range: 5...86_400, reload: .restart, doc: "time between sync attempts"),
        .double(
            "milestones", "every_km", \.milestones.everyKm, range: 1...1_000_000, reload: .restart,
            doc: "a milestone event every this many km"),
        .choice("log", "level", \.log.level, flag: .value("log-level"), reload: .restart, doc: "log threshold (also `--log-level`)"),
        .string(
            "status", "socket", \.status.socket, check: Checks.socketPath, flag: .path("status-socket"), reload: .restart,
            doc: "status/tail socket (mode 0660, under `RuntimeDirectory`)"),
        .string(
            "review", "listen", \.review.listen, check: Checks.listenAddress, reload: .restart,
            doc:
                "the rider's review page (docs/review.md); empty: none. The example file sets `127.0.0.1:8080` (loopback); `0.0.0.0:8080` opens it to the Wi-Fi, pairing still required; the start line then names each interface's URL, requests must name this machine in `Host`, and a port in use is said in one sentence (docs/review.md)"
        ),
        .string(
            "review", "tiles_url", \.review.tilesURL, check: Checks.tileTemplate, reload: .restart,
            doc:
                "raster street tiles the phone loads under the review map; the tile server learns the phone's address and the area of each ride reviewed (docs/review.md, \"Street map\")"
        ),
        .string(
            "review", "tiles_attribution", \.review.tilesAttribution, reload: .restart,
            doc: "shown under the map (OpenStreetMap asks for `© OpenStreetMap contributors`)"),
        .string(
            "review", "mbtiles", \.review.mbtiles, check: Checks.optionalAbsolutePath, reload: .restart,
            doc: "an MBTiles file (raster) on the device the page serves itself; used instead of `tiles_url`; nothing leaves the device"),
    ]

    /// Each section with its keys, in `config show`'s order: what the reader, the renderer
    /// and the JSON form walk.
    public static let bySection: [(name: String, keys: [ConfigurationKey])] = sections.map { name in
        (name, all.filter { $0.section == name })
    }

    /// The key that sets `field` (`ConfigurationKey[\.sync.hubURL]`); a field no key of `all`
    /// sets is a programming error.
    public static subscript(field: PartialKeyPath<DaemonConfiguration>) -> ConfigurationKey {
        guard let key = all.first(where: { $0.field == field }) else { preconditionFailure("no configuration key sets \(field)") }
        return key
    }

    /// `section.name` of the key that sets `field`, for messages and help.
    public static func path(_ field: PartialKeyPath<DaemonConfiguration>) -> String { Self[field].path }

    /// The flag that overrides the key set by `field`; a key without one is a programming error.
    public static func flag(_ field: PartialKeyPath<DaemonConfiguration>) -> String {
        guard let flag = Self[field].flag else { preconditionFailure("\(Self[field].path) has no flag") }
        return flag.name
    }

    /// The keys whose values differ between `a` and `b`.
    public static func changed(from a: DaemonConfiguration, to b: DaemonConfiguration) -> [ConfigurationKey] {
        all.filter { $0.value(a) != $0.value(b) }
    }
}

/// A key's value as `config show` writes it.
public enum ConfigurationValue: Sendable, Equatable, Codable {
    case string(String), int(Int), double(Double), bool(Bool), zones([DaemonConfiguration.Zone])

    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .double(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else {
            self = .zones(try c.decode([DaemonConfiguration.Zone].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .string(let s): try c.encode(s)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .bool(let b): try c.encode(b)
        case .zones(let z): try c.encode(z)
        }
    }

    /// The value as TOML (a float always with its point, so it reads back as a float).
    var tomlText: String {
        switch self {
        case .string(let s): TOMLText.string(s)
        case .int(let i): "\(i)"
        case .double(let d): TOMLText.number(d)
        case .bool(let b): "\(b)"
        case .zones(let zones):
            "["
                + zones.map {
                    "{ name = \(TOMLText.string($0.name)), lat = \(TOMLText.number($0.lat)), lon = \(TOMLText.number($0.lon)), radius_m = \(TOMLText.number($0.radiusM)) }"
                }.joined(separator: ", ") + "]"
        }
    }
}

extension ConfigurationKey {
    typealias Path<Value> = WritableKeyPath<DaemonConfiguration, Value> & Sendable

    static func string(
        _ section: String, _ name: String, _ path: Path<String>,
        check: @escaping @Sendable (String) -> String? = { _ in nil }, flag: Flag? = nil, reload: ReloadEffect, doc: String
    ) -> Self {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: flag,
            read: { t, c in t.string(name, &c[keyPath: path], check: check) },
            value: { .string($0[keyPath: path]) },
            assign: { c, v in
                guard case .string(let s) = v else { return false }; c[keyPath: path] = s; return true
            },
            check: { v in if case .string(let s) = v { check(s) } else { "expected a string" } })
    }

    static func int(
        _ section: String, _ name: String, _ path: Path<Int>, range: ClosedRange<Int>, flag: Flag? = nil, reload: ReloadEffect, doc: String
    ) -> Self {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: flag,
            read: { t, c in t.int(name, &c[keyPath: path], range: range) },
            value: { .int($0[keyPath: path]) },
            assign: { c, v in
                guard case .int(let i) = v else { return false }; c[keyPath: path] = i; return true
            },
            check: { v in if case .int(let i) = v { Checks.inRange(i, range) } else { "expected an integer" } })
    }

    static func double(
        _ section: String, _ name: String, _ path: Path<Double>, range: ClosedRange<Double>, flag: Flag? = nil, reload: ReloadEffect,
        doc: String
    ) -> Self {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: flag,
            read: { t, c in t.double(name, &c[keyPath: path], range: range) },
            value: { .double($0[keyPath: path]) },
            assign: { c, v in
                // JSON writes 100.0 as 100.
                switch v {
                case .double(let d): c[keyPath: path] = d
                case .int(let i): c[keyPath: path] = Double(i)
                default: return false
                }
                return true
            },
            check: { v in
                switch v {
                case .double(let d): Checks.inRange(d, range)
                case .int(let i): Checks.inRange(Double(i), range)
                default: "expected a number"
                }
            })
    }

    static func bool(_ section: String, _ name: String, _ path: Path<Bool>, reload: ReloadEffect, doc: String) -> Self {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: nil,
            read: { t, c in t.bool(name, &c[keyPath: path]) },
            value: { .bool($0[keyPath: path]) },
            assign: { c, v in
                guard case .bool(let b) = v else { return false }; c[keyPath: path] = b; return true
            },
            check: { v in if case .bool = v { nil } else { "expected true or false" } })
    }

    static func optionalBool(_ section: String, _ name: String, _ path: Path<Bool?>, reload: ReloadEffect, doc: String) -> Self {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: nil,
            read: { t, c in t.bool(name, &c[keyPath: path]) },
            value: { $0[keyPath: path].map(ConfigurationValue.bool) },
            assign: { c, v in
                guard case .bool(let b) = v else { return false }; c[keyPath: path] = b; return true
            },
            check: { v in if case .bool = v { nil } else { "expected true or false" } })
    }

    static func choice<E: RawRepresentable & CaseIterable & Sendable>(
        _ section: String, _ name: String, _ path: Path<E>, flag: Flag? = nil,
        reload: ReloadEffect, doc: String
    ) -> Self where E.RawValue == String {
        Self(
            section: section, name: name, reload: reload, doc: doc, field: path, flag: flag,
            read: { t, c in t.choice(name, &c[keyPath: path]) },
            value: { .string($0[keyPath: path].rawValue) },
            assign: { c, v in
                guard case .string(let s) = v, let e = E(rawValue: s) else { return false }
                c[keyPath: path] = e
                return true
            },
            check: { v in if case .string(let s) = v { Checks.choice(s, of: E.self) } else { "expected a string" } })
    }

    /// `[[privacy.zones]]` (or `zones = [...]`): every zone needs all four fields.
    static var zones: Self {
        Self(
            section: "privacy", name: "zones", reload: .restart, doc: "circles inside which no position leaves the device",
            field: \DaemonConfiguration.privacy.zones, flag: nil,
            read: { t, c in
                var zones: [DaemonConfiguration.Zone] = []
                t.tables("zones") { z in
                    z.require("name", "lat", "lon", "radius_m")
                    var zone = DaemonConfiguration.Zone(name: "", lat: 0, lon: 0, radiusM: 100)
                    z.string("name", &zone.name, check: Checks.nonEmpty)
                    z.double("lat", &zone.lat, range: -90...90)
                    z.double("lon", &zone.lon, range: -180...180)
                    z.double("radius_m", &zone.radiusM, range: PrivacyZone.radiusRange)
                    zones.append(zone)
                }
                if t.source["zones"] != nil { c.privacy.zones = zones }
            }, value: { .zones($0.privacy.zones) },
            assign: { c, v in
                guard case .zones(let z) = v else { return false }; c.privacy.zones = z; return true
            },
            // Each zone's fields are checked as the file is read; no flag sets zones.
            check: { v in if case .zones = v { nil } else { "expected an array of zones" } })
    }
}

/// TOML literals that read back as exactly the value written.
enum TOMLText {
    /// A TOML basic string.
    static func string(_ s: String) -> String {
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
    static func number(_ d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(format: "%.1f", d) }
        return "\(d)"
    }
}
