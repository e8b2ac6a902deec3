/// Device metadata at the start of a recording. Stored as UTF-8 `key=value` lines (one
/// per line, keys in a fixed order) so `head -c 2000 file.bpr` shows it to a human, and
/// unknown keys from newer writers survive a read/write round trip in `extra`.
public struct RecordingHeader: Sendable, Equatable {
    /// One sensor stream. Orientation describes how the sensor frame sits on the bike.
    public struct Sensor: Sendable, Equatable {
        /// Short stable id: `accel`, `gyro`, `gnss`.
        public var id: String
        /// `accelerometer`, `gyroscope` or `gnss`.
        public var kind: String
        /// Device name as the source reported it, e.g. the IIO device name.
        public var name: String
        /// Nominal (or, for imports, measured mean) sample rate.
        public var rateHz: Double?
        /// Unit of the recorded values: `m/s^2`, `rad/s`, `nmea0183`.
        public var unit: String
        /// Factor the source applied to raw counts to get `unit` (IIO `scale`); informational,
        /// the recorded values are already in SI units.
        public var scale: Double?
        /// Row-major 3×3 rotation taking sensor-frame vectors to the bike frame
        /// (x forward, y left, z up). nil when the mounting is unknown.
        public var sensorToBike: [Double]?
        public var note: String?

        /// Creates a sensor description from its fields.
        public init(
            id: String, kind: String, name: String, rateHz: Double? = nil, unit: String,
            scale: Double? = nil, sensorToBike: [Double]? = nil, note: String? = nil
        ) {
            self.id = id
            self.kind = kind
            self.name = name
            self.rateHz = rateHz
            self.unit = unit
            self.scale = scale
            self.sensorToBike = sensorToBike
            self.note = note
        }
    }

    /// Always `monotonic-ns`: every record time is nanoseconds on one monotonic clock
    /// (CLOCK_MONOTONIC live; for imports, the source's own relative clock).
    public var clock: String
    /// UTC at the moment the monotonic clock read `createdAtMonotonic`, when known.
    public var createdUTC: UTCTime?
    public var createdAtMonotonic: SampleTime?
    /// `live` or `import`.
    public var source: String
    /// For imports: importer and input files; for live: host/device details.
    public var sourceDetail: String?
    /// Program that wrote the file.
    public var writer: String?
    public var sensors: [Sensor]
    /// Keys this version does not know, kept in file order.
    public var extra: [(key: String, value: String)]

    /// Creates a header; `source` is `live` or `import`.
    public init(
        clock: String = "monotonic-ns", createdUTC: UTCTime? = nil, createdAtMonotonic: SampleTime? = nil,
        source: String, sourceDetail: String? = nil, writer: String? = nil, sensors: [Sensor] = [],
        extra: [(key: String, value: String)] = []
    ) {
        self.clock = clock
        self.createdUTC = createdUTC
        self.createdAtMonotonic = createdAtMonotonic
        self.source = source
        self.sourceDetail = sourceDetail
        self.writer = writer
        self.sensors = sensors
        self.extra = extra
    }

    /// Equal when every field and every extra key and value, in order, are equal.
    public static func == (a: RecordingHeader, b: RecordingHeader) -> Bool {
        a.clock == b.clock && a.createdUTC == b.createdUTC && a.createdAtMonotonic == b.createdAtMonotonic
            && a.source == b.source && a.sourceDetail == b.sourceDetail && a.writer == b.writer
            && a.sensors == b.sensors && a.extra.map(\.key) == b.extra.map(\.key)
            && a.extra.map(\.value) == b.extra.map(\.value)
    }

    /// The sensor with this id, if the header lists one.
    public func sensor(id: String) -> Sensor? { sensors.first { $0.id == id } }
}

// MARK: - Text form

extension RecordingHeader {
    /// The header text. Newlines inside values are replaced by spaces (a value is one line).
    public var text: String {
        var lines: [String] = []
        func add(_ key: String, _ value: String?) {
            guard let value else { return }
            lines.append(key + "=" + value.replacing("\n", with: " ").replacing("\r", with: " "))
        }
        add("clock", clock)
        add("created-utc", createdUTC.map { UTCCivilTime($0).iso8601Milliseconds })
        add("created-at-monotonic-ns", createdAtMonotonic.map { String($0.nanoseconds) })
        add("source", source)
        add("source-detail", sourceDetail)
        add("writer", writer)
        for (i, s) in sensors.enumerated() {
            let p = "sensor.\(i)."
            add(p + "id", s.id)
            add(p + "kind", s.kind)
            add(p + "name", s.name)
            add(p + "rate-hz", s.rateHz.map { "\($0)" })
            add(p + "unit", s.unit)
            add(p + "scale", s.scale.map { "\($0)" })
            add(p + "sensor-to-bike", s.sensorToBike.map { $0.map { "\($0)" }.joined(separator: ",") })
            add(p + "note", s.note)
        }
        for (k, v) in extra { add(k, v) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Parses the header text; the error names the offending line.
    public init(text: String) throws(RecordingHeaderError) {
        self.init(source: "")
        var sensorsByIndex: [Int: Sensor] = [:]
        var lineNumber = 0
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            if raw.isEmpty { continue }
            guard let eq = raw.firstIndex(of: "=") else {
                throw RecordingHeaderError(line: lineNumber, message: "expected key=value")
            }
            let key = String(raw[..<eq])
            let value = String(raw[raw.index(after: eq)...])
            func number() throws(RecordingHeaderError) -> Double {
                guard let d = Double(value), d.isFinite else {
                    throw RecordingHeaderError(line: lineNumber, message: "\(key): '\(value)' is not a number")
                }
                return d
            }
            switch key {
            case "clock": clock = value
            case "created-utc":
                guard let c = UTCCivilTime.parseISO8601(value) else {
                    throw RecordingHeaderError(line: lineNumber, message: "created-utc: '\(value)' is not ISO 8601 UTC")
                }
                guard let utc = c.checkedUTCTime else {
                    throw RecordingHeaderError(
                        line: lineNumber, message: "created-utc: '\(value)' is outside 1678–2262, the years nanoseconds since 1970 can hold"
                    )
                }
                createdUTC = utc
            case "created-at-monotonic-ns":
                guard let n = Int64(value) else {
                    throw RecordingHeaderError(line: lineNumber, message: "\(key): '\(value)' is not an integer")
                }
                createdAtMonotonic = SampleTime(nanoseconds: n)
            case "source": source = value
            case "source-detail": sourceDetail = value
            case "writer": writer = value
            default:
                guard key.hasPrefix("sensor.") else { extra.append((key, value)); continue }
                let parts = key.split(separator: ".", maxSplits: 2)
                guard parts.count == 3, let index = Int(parts[1]), (0..<64).contains(index) else {
                    throw RecordingHeaderError(line: lineNumber, message: "bad sensor key '\(key)'")
                }
                var s = sensorsByIndex[index] ?? Sensor(id: "", kind: "", name: "", unit: "")
                switch parts[2] {
                case "id": s.id = value
                case "kind": s.kind = value
                case "name": s.name = value
                case "unit": s.unit = value
                case "note": s.note = value
                case "rate-hz": s.rateHz = try number()
                case "scale": s.scale = try number()
                case "sensor-to-bike":
                    let m = value.split(separator: ",").compactMap { Double($0) }
                    guard m.count == 9, m.allSatisfy(\.isFinite) else {
                        throw RecordingHeaderError(line: lineNumber, message: "sensor-to-bike needs 9 numbers")
                    }
                    s.sensorToBike = m
                default: extra.append((key, value))
                }
                sensorsByIndex[index] = s
            }
        }
        sensors = sensorsByIndex.keys.sorted().compactMap { sensorsByIndex[$0] }
    }
}

/// A header that cannot be read: the 1-based line and why.
public struct RecordingHeaderError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var message: String
    public var description: String { "header line \(line): \(message)" }
}
