import BikePathCore
import Logging

/// The sensors a deployment can require.
public enum SensorKind: String, Sendable, Codable, CaseIterable {
    case gnss, imu
}

/// One thing wrong (or worth knowing), and what to try, for a field technician.
public struct SensorProblem: Sendable, Equatable, Codable {
    /// How much a problem matters: an `error` keeps the sensor from working, a `warning` limits
    /// it, `info` is worth knowing.
    public enum Severity: String, Sendable, Codable { case error, warning, info }
    public var sensor: SensorKind
    public var severity: Severity
    public var problem: String
    public var tryThis: String

    /// Creates a problem: which sensor, how bad, what is wrong and what to try.
    public init(_ sensor: SensorKind, _ severity: Severity, _ problem: String, try tryThis: String) {
        self.sensor = sensor
        self.severity = severity
        self.problem = problem
        self.tryThis = tryThis
    }
}

/// What `bikepathd diagnose` reports: both sources' status after a short run, the
/// problems found, and which required sensors are missing.
public struct SensorDiagnosis: Sendable, Equatable, Encodable {
    public var gnss: GNSSStatus?
    public var gnssFixAgeSeconds: Double?
    public var imu: IMUStatus?
    public var problems: [SensorProblem]
    public var missingRequired: [SensorKind]
    public var observedSeconds: Double

    // docs/json.md: a key carries its unit (`_s`), as everywhere else in schema 1.
    private enum CodingKeys: String, CodingKey {
        case gnss, gnssFixAgeSeconds = "gnss_fix_age_s", imu, problems, missingRequired, observedSeconds = "observed_s"
    }

    public var ok: Bool { missingRequired.isEmpty }

    /// Diagnoses the sources' status after `observedSeconds` of running; `required` lists the
    /// sensors whose absence makes the diagnosis fail, `now` is the monotonic time the fix age
    /// is taken at.
    public init(gnss: GNSSStatus?, imu: IMUStatus?, required: Set<SensorKind>, observedSeconds: Double, now: SampleTime) {
        self.gnss = gnss
        self.imu = imu
        self.observedSeconds = observedSeconds
        gnssFixAgeSeconds = gnss?.fixAge(now: now)
        var problems: [SensorProblem] = []
        var missing: [SensorKind] = []
        if let gnss {
            if !Self.gnssPresent(gnss) { missing.append(.gnss) }
            problems += Self.problems(gnss, fixAge: gnssFixAgeSeconds, observed: observedSeconds)
        } else if required.contains(.gnss) {
            missing.append(.gnss)
        }
        if let imu {
            if !Self.imuPresent(imu) { missing.append(.imu) }
            problems += Self.problems(imu)
        } else if required.contains(.imu) {
            missing.append(.imu)
        }
        self.problems = problems
        self.missingRequired = missing.filter(required.contains)
    }

    /// gpsd answered and has a receiver.
    static func gnssPresent(_ s: GNSSStatus) -> Bool { s.connects > 0 && (!s.devices.isEmpty || s.epochs > 0) }
    /// The IMU delivered samples.
    static func imuPresent(_ s: IMUStatus) -> Bool { s.samples > 0 }

    static func problems(_ s: GNSSStatus, fixAge: Double?, observed: Double) -> [SensorProblem] {
        var p: [SensorProblem] = []
        guard s.connects > 0 else {
            return [
                SensorProblem(
                    .gnss, .error, s.lastError ?? "gpsd not reachable at \(s.host):\(s.port)",
                    try: "start gpsd (systemctl start gpsd.socket) or check --gpsd-host/--gpsd-port")
            ]
        }
        if s.devices.isEmpty && s.epochs == 0 {
            p.append(
                SensorProblem(
                    .gnss, .error, "gpsd has no GNSS receiver",
                    try: "plug the receiver in and check DEVICES in /etc/default/gpsd (gpsctl -l lists what gpsd sees)"))
        } else if s.epochs == 0 {
            p.append(
                SensorProblem(
                    .gnss, .error, "gpsd has a receiver but sent no position reports in \(Self.format(observed)) s",
                    try: "check the receiver's baud rate and wiring (gpsmon shows raw traffic)"))
        } else if s.fixMode < .twoD {
            p.append(
                SensorProblem(
                    .gnss, .warning, "no fix yet (\(s.satellitesSeen ?? 0) satellites seen)",
                    try: "move under open sky; a cold start can take several minutes"))
        } else if s.fixMode == .twoD {
            p.append(
                SensorProblem(
                    .gnss, .warning, "only a 2D fix: no altitude, GNSS time not trusted",
                    try: "wait for more satellites (\(s.satellitesUsed ?? 0) used)"))
        }
        if let age = fixAge, age > 5 {
            p.append(SensorProblem(.gnss, .warning, "last fix is \(Self.format(age)) s old", try: "check the antenna's view of the sky"))
        }
        if let hdop = s.hdop, hdop > 5 {
            p.append(
                SensorProblem(
                    .gnss, .warning, "poor satellite geometry (HDOP \(Self.format(hdop)))",
                    try: "positions will wander; move away from buildings and trees"))
        }
        if let offset = s.clockOffsetSeconds, abs(offset) > 1 {
            p.append(
                SensorProblem(
                    .gnss, .warning, "system clock differs from GNSS time by \(Self.format(offset)) s",
                    try: "run chrony/NTP with gpsd's SHM refclock so the system clock follows GNSS"))
        }
        if s.implausibleFixTimes > 0 {
            p.append(
                SensorProblem(
                    .gnss, .warning, "\(s.implausibleFixTimes) 3D fixes carried an implausible time (GPS week rollover?)",
                    try: "update the receiver firmware; GNSS time is not used for the clock offset meanwhile"))
        }
        if s.protocolErrors > 0 {
            p.append(
                SensorProblem(
                    .gnss, .warning, "gpsd sent \(s.protocolErrors) lines that are neither JSON nor NMEA",
                    try: "check that gpsd (not another service) listens on \(s.port) and that libgps matches its version"))
        }
        if s.disconnects > 0 {
            p.append(
                SensorProblem(
                    .gnss, .info, "connection to gpsd dropped \(s.disconnects) times during the check",
                    try: "journalctl -u gpsd for restarts"))
        }
        if s.deliveryDrops > 0 {
            p.append(
                SensorProblem(
                    .gnss, .warning, "\(s.deliveryDrops) GNSS records dropped by a slow consumer",
                    try: "the system is overloaded; check top"))
        }
        return p
    }

    static func problems(_ s: IMUStatus) -> [SensorProblem] {
        var p: [SensorProblem] = []
        if s.connects == 0 {
            p.append(
                SensorProblem(
                    .imu, .error, "no IMU: " + (s.lastError ?? "nothing found at \(s.uri)"),
                    try: "check the driver is loaded (ls /sys/bus/iio/devices; iio_info -u \(s.uri)) or set --iio-uri/--iio-device"))
        } else if s.samples == 0 {
            p.append(
                SensorProblem(
                    .imu, .error, "IMU found but no samples arrived" + (s.lastError.map { " (\($0))" } ?? ""),
                    try: "check the device's trigger (trigger/current_trigger) and interrupt line"))
        }
        if s.unsupportedFormats > 0 {
            p.append(
                SensorProblem(
                    .imu, .error, "\(s.unsupportedFormats) scan elements have a layout this build cannot decode",
                    try: "see the log for the format; report it with the output of iio_info"))
        }
        if s.unknownChannels > 0 {
            p.append(
                SensorProblem(
                    .imu, .info, "\(s.unknownChannels) scan elements of a type libiio does not know were ignored",
                    try: "nothing, unless they are the accelerometer or gyro"))
        }
        if let configured = s.configuredRateHz, abs(configured - s.requestedRateHz) > 0.01 * s.requestedRateHz {
            p.append(
                SensorProblem(
                    .imu, .warning, "device runs at \(Self.format(configured)) Hz, not the requested \(Self.format(s.requestedRateHz)) Hz",
                    try: "pick a rate from sampling_frequency_available"))
        }
        if let configured = s.configuredRateHz, let measured = s.measuredRateHz, abs(measured - configured) > 0.05 * configured {
            p.append(
                SensorProblem(
                    .imu, .warning, "measured rate \(Self.format(measured)) Hz differs from configured \(Self.format(configured)) Hz",
                    try: "check the trigger source and that nothing else reads the device"))
        }
        if s.gaps > 0 {
            p.append(
                SensorProblem(
                    .imu, .warning, "\(s.gaps) gaps in the sample stream (\(s.missingSamples) samples missing)",
                    try: "the reader fell behind or the device stalled; check CPU load and the interrupt line"))
        }
        if s.overruns > 0 {
            p.append(
                SensorProblem(
                    .imu, .warning, "\(s.overruns) batches (\(s.droppedSamples) samples) dropped by a slow consumer",
                    try: "the system is overloaded; check top"))
        }
        if s.timeouts + s.shortReads + s.readErrors > 0 {
            p.append(
                SensorProblem(
                    .imu, .warning, "\(s.timeouts) read timeouts, \(s.shortReads) short reads, \(s.readErrors) read errors",
                    try: "check dmesg for the driver; a loose connector shows up like this"))
        }
        return p
    }

    static func format(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

extension SensorDiagnosis {
    /// `bikepathd diagnose`: both sources started, watched for `seconds` (at
    /// least 0.5: a connection needs a moment), stopped, and judged.
    /// `logLevel` decides whether the sources' own log lines show.
    public static func watch(
        gnss configuration: GPSDConfiguration, imu imuConfiguration: IIOConfiguration,
        seconds: Double, required: Set<SensorKind>,
        logLevel: Logger.Level = .critical
    ) async throws -> SensorDiagnosis {
        var gnssLogger = Logger(label: "bikepath.gnss")
        gnssLogger.logLevel = logLevel
        var imuLogger = Logger(label: "bikepath.imu")
        imuLogger.logLevel = logLevel
        let gnss = GPSDSource(configuration: configuration, logger: gnssLogger)
        let imu = IIOSource(configuration: imuConfiguration, logger: imuLogger)
        let started = EdgeClock.monotonic()
        gnss.start { _ in true }
        imu.start { _ in true }
        defer {
            gnss.stop()
            imu.stop()
        }
        try await Task.sleep(nanoseconds: UInt64(max(0.5, seconds) * 1e9))
        let now = EdgeClock.monotonic()
        return SensorDiagnosis(
            gnss: gnss.status, imu: imu.status, required: required,
            observedSeconds: now - started, now: now)
    }
}
