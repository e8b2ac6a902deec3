import BikePathCore

/// Imports a GoPro telemetry CSV export (as in the AllTheDocks dataset): `*-accl.csv`
/// (Milliseconds, AcclX/Y/Z m/s²), `*-gyro.csv` (Milliseconds, GyroX/Y/Z rad/s) and
/// `*-gps.csv` (Milliseconds, Latitude, Longitude, Altitude, Speed m/s, Speed3D, TS µs
/// UTC, GpsAccuracy = DOP×100, GpsFix 0/2/3).
///
/// Clock: `Milliseconds` is time since the start of the video in every file, so it is the
/// one monotonic clock (ns = ms × 10⁶). GPS rows become the NMEA a receiver would send for
/// them (RMC + GGA, see NMEAWriter), received at the row's Milliseconds; UTC comes from TS.
/// GoPro gives no course over ground, so the track field stays empty.
public enum GoProCSVImporter {
    /// The CSV files of one GoPro export (paths); any may be missing, but a gyro needs its accl.
    public struct Files: Sendable, Equatable {
        public var accl: String?
        public var gyro: String?
        public var gps: String?
        /// Creates the set from explicit paths.
        public init(accl: String? = nil, gyro: String? = nil, gps: String? = nil) {
            self.accl = accl
            self.gyro = gyro
            self.gps = gps
        }

        /// `PREFIX-accl.csv`, `PREFIX-gyro.csv`, `PREFIX-gps.csv`, whichever exist.
        public init(prefix: String) {
            func existing(_ suffix: String) -> String? { fileExists(prefix + suffix) ? prefix + suffix : nil }
            self.init(accl: existing("-accl.csv"), gyro: existing("-gyro.csv"), gps: existing("-gps.csv"))
        }

        var all: [String] { [accl, gyro, gps].compactMap { $0 } }
    }

    /// What an import read.
    public struct Statistics: Sendable, Equatable {
        public var imuSamples = 0
        /// Packet starts where the export's times went backwards and were re-spaced.
        public var imuTimeRepairs = 0
        public var gpsRows = 0
        public var nmeaSentences = 0
    }

    /// Reads the files into a recording in receive-time order; `writer` goes into the header.
    /// - Throws: `ImportError` naming the file (and line) when a file cannot be read or a row
    ///   is not valid, when a gyro comes without its accl, or when there is neither accl nor
    ///   gps.
    public static func load(_ files: Files, writer: String = "bikepathd") throws(ImportError) -> (ImportedRecording, Statistics) {
        if let gyro = files.gyro, files.accl == nil {
            throw ImportError(path: gyro, message: "a gyro CSV needs the matching accl CSV")
        }
        guard files.accl != nil || files.gps != nil else {
            throw ImportError(path: "(no files)", message: "need at least an accl or a gps CSV")
        }
        var stats = Statistics()
        var sensors: [RecordingHeader.Sensor] = []
        var imu: [IMUSample] = []
        if let acclPath = files.accl {
            let accl = try NumericCSV(path: acclPath, required: ["Milliseconds", "AcclX", "AcclY", "AcclZ"])
            try accl.requireWithin("Milliseconds", millisecondsRange, millisecondsRule)
            let rawTime = accl.column("Milliseconds")
            let (t, repairs) = try respaceOverlappingPackets(rawTime, csv: accl)
            stats.imuTimeRepairs = repairs
            let x = accl.column("AcclX"), y = accl.column("AcclY"), z = accl.column("AcclZ")
            var gyro: (x: [Double], y: [Double], z: [Double])?
            if let gyroPath = files.gyro {
                let g = try NumericCSV(path: gyroPath, required: ["Milliseconds", "GyroX", "GyroY", "GyroZ"])
                guard g.rowCount == accl.rowCount else {
                    throw ImportError(
                        path: gyroPath,
                        message: "\(g.rowCount) rows but \(baseName(acclPath)) has \(accl.rowCount); accl and gyro rows must pair up")
                }
                let gt = g.column("Milliseconds")
                for i in gt.indices where abs(gt[i] - rawTime[i]) > 0.5 {
                    throw ImportError(
                        path: gyroPath, line: g.lineNumbers[i],
                        message: "time \(gt[i]) ms does not match \(baseName(acclPath)) line \(accl.lineNumbers[i]) (\(rawTime[i]) ms)")
                }
                gyro = (g.column("GyroX"), g.column("GyroY"), g.column("GyroZ"))
            }
            imu.reserveCapacity(t.count)
            for i in t.indices {
                let a = Vector3(x: Float(x[i]), y: Float(y[i]), z: Float(z[i]))
                let g = gyro.map { Vector3(x: Float($0.x[i]), y: Float($0.y[i]), z: Float($0.z[i])) }
                imu.append(IMUSample(time: nanoseconds(t[i]), accel: a, gyro: g))
            }
            stats.imuSamples = imu.count
            let rate = meanRate(t)
            let rest = meanAccel(imu.prefix { $0.time.seconds < 1 })
            let note =
                "GoPro camera frame as exported; how the camera sat on the bike is not stated by the source."
                + " Mean acceleration over the first second: \(rest)"
            sensors.append(
                .init(
                    id: "accel", kind: "accelerometer", name: "GoPro HERO IMU (GPMF ACCL)", rateHz: rate,
                    unit: "m/s^2", note: note))
            if gyro != nil {
                sensors.append(
                    .init(
                        id: "gyro", kind: "gyroscope", name: "GoPro HERO IMU (GPMF GYRO)", rateHz: rate,
                        unit: "rad/s", note: "same frame as accel"))
            }
        }
        var nmea: [SensorRecord] = []
        var createdUTC: UTCTime?
        if let gpsPath = files.gps {
            let gps = try NumericCSV(
                path: gpsPath, required: ["Milliseconds", "Latitude", "Longitude", "Altitude", "Speed", "TS", "GpsAccuracy", "GpsFix"])
            try gps.requireWithin("Milliseconds", millisecondsRange, millisecondsRule)
            try gps.requireNonDecreasing("Milliseconds")
            let t = gps.column("Milliseconds"), lat = gps.column("Latitude"), lon = gps.column("Longitude")
            let alt = gps.column("Altitude"), speed = gps.column("Speed"), ts = gps.column("TS")
            let dop = gps.column("GpsAccuracy"), fixCode = gps.column("GpsFix")
            for i in t.indices {
                guard abs(lat[i]) <= 90, abs(lon[i]) <= 180 else {
                    throw ImportError(path: gpsPath, line: gps.lineNumbers[i], message: "position \(lat[i]), \(lon[i]) is out of range")
                }
                // Below the Dead Sea shore (−430 m) or above the highest road passes (~5,800 m)
                // is no ride: −1e9 m passed before and reached the track as GGA altitude.
                guard (-500...9_000).contains(alt[i]) else {
                    throw ImportError(path: gpsPath, line: gps.lineNumbers[i], message: "altitude \(alt[i]) m is out of range −500…9000")
                }
                // GPMF's DOP × 100: 0 (ideal) to 9999 (no fix); negative is no dilution of precision.
                guard (0...9_999).contains(dop[i]) else {
                    throw ImportError(
                        path: gpsPath, line: gps.lineNumbers[i], message: "GpsAccuracy \(dop[i]) is out of range 0…9999 (DOP × 100)")
                }
                guard ts[i] > 0, ts[i] < 9.2e15 else {
                    throw ImportError(path: gpsPath, line: gps.lineNumbers[i], message: "TS \(ts[i]) is not a time in µs since 1970")
                }
                let received = nanoseconds(t[i])
                let utc = UTCTime(nanosecondsSince1970: Int64(ts[i].rounded()) * 1000)
                if createdUTC == nil {
                    createdUTC = UTCTime(nanosecondsSince1970: utc.nanosecondsSince1970 - received.nanoseconds)
                }
                let mode: FixMode = fixCode[i] >= 3 ? .threeD : fixCode[i] >= 2 ? .twoD : .noFix
                let fix = GNSSFix(
                    receivedAt: received, time: utc, mode: mode, latitude: lat[i], longitude: lon[i],
                    altitudeMSL: alt[i], speed: max(0, speed[i]), hdop: dop[i] / 100)
                for s in NMEAWriter.sentences(for: fix) { nmea.append(.nmea(received, s)) }
            }
            stats.gpsRows = t.count
            stats.nmeaSentences = nmea.count
            sensors.append(
                .init(
                    id: "gnss", kind: "gnss", name: "GoPro HERO GPS (GPMF GPS5) as RMC+GGA", rateHz: meanRate(t),
                    unit: "nmea0183",
                    note:
                        "NMEA synthesized on import: time from TS, speed from Speed, fix from GpsFix, HDOP = GpsAccuracy/100, altitude taken as MSL"
                ))
        }
        let header = RecordingHeader(
            createdUTC: createdUTC, createdAtMonotonic: createdUTC == nil ? nil : SampleTime(nanoseconds: 0),
            source: "import", sourceDetail: "gopro-csv: " + files.all.map(baseName).joined(separator: ", "),
            writer: writer, sensors: sensors)
        return (ImportedRecording(header: header, records: merge(imu: imu, nmea: nmea)), stats)
    }

    /// GoPro stores IMU data in packets of about one second; the CSV export (gpmd2csv)
    /// spreads each packet's samples at a fixed step from the packet's start time, so a
    /// packet can run a few ms past the start of the next one and the time steps backwards
    /// (161 times in GX010056, by at most 5.9 ms). The next packet's start time is the
    /// trustworthy one, so the samples of the overrunning packet (found as the run of equal
    /// steps before the overlap) are re-spaced evenly up to it: the packet really lasted
    /// less than the export assumed. Time becomes non-decreasing and no sample moves by
    /// more than the overlap plus one sample interval (11 ms in GX010056). A step back of more
    /// than 50 ms is not an overlap but broken input, and an error.
    static func respaceOverlappingPackets(_ t: [Double], csv: NumericCSV) throws(ImportError) -> ([Double], Int) {
        var out = t
        var floor = 0  // rows before this were already re-spaced
        var repairs = 0
        for i in t.indices.dropFirst() where t[i] < t[i - 1] {
            guard t[i - 1] - t[i] <= 50, i >= 2 else {
                throw ImportError(
                    path: csv.path, line: csv.lineNumbers[i], message: "Milliseconds goes backwards (\(t[i - 1]) then \(t[i]))")
            }
            let packetStep = t[i - 1] - t[i - 2]
            var start = i - 1
            while start - 1 > floor && abs((t[start] - t[start - 1]) - packetStep) < 1e-6 { start -= 1 }
            if abs((t[start] - t[start - 1]) - packetStep) < 1e-6 { start -= 1 }  // reached the floor row
            guard t[i] > t[start] else {
                throw ImportError(
                    path: csv.path, line: csv.lineNumbers[i], message: "Milliseconds goes backwards (\(t[i - 1]) then \(t[i]))")
            }
            let step = (t[i] - t[start]) / Double(i - start)
            for k in start..<i { out[k] = t[start] + Double(k - start) * step }
            floor = i
            repairs += 1
        }
        return (out, repairs)
    }

    /// One time-ordered stream; a sentence received at the same instant as a sample goes first.
    static func merge(imu: [IMUSample], nmea: [SensorRecord]) -> [SensorRecord] {
        var out: [SensorRecord] = []
        out.reserveCapacity(imu.count + nmea.count)
        var i = 0, j = 0
        while i < imu.count || j < nmea.count {
            if j < nmea.count && (i == imu.count || nmea[j].time <= imu[i].time) {
                out.append(nmea[j])
                j += 1
            } else {
                out.append(.imu(imu[i]))
                i += 1
            }
        }
        return out
    }

    /// Milliseconds since the start of the video: 0 to 10¹¹ (3 years) keeps every
    /// derived nanosecond time, and UTC minus it, well inside Int64 (±9.2·10¹⁸).
    static let millisecondsRange: ClosedRange<Double> = 0...1e11
    static let millisecondsRule = "Milliseconds is the time since the start of the video, 0 to 10^11"

    static func nanoseconds(_ milliseconds: Double) -> SampleTime {
        SampleTime(nanoseconds: Int64((milliseconds * 1_000_000).rounded()))
    }

    static func meanRate(_ ms: [Double]) -> Double? {
        guard ms.count > 1, let a = ms.first, let b = ms.last, b > a else { return nil }
        return (Double(ms.count - 1) / ((b - a) / 1000) * 1000).rounded() / 1000
    }

    static func meanAccel(_ samples: some Collection<IMUSample>) -> String {
        guard !samples.isEmpty else { return "n/a" }
        var x = 0.0, y = 0.0, z = 0.0
        for s in samples { x += Double(s.accel.x); y += Double(s.accel.y); z += Double(s.accel.z) }
        let n = Double(samples.count)
        func r(_ v: Double) -> Double { (v / n * 100).rounded() / 100 }
        return "(\(r(x)), \(r(y)), \(r(z))) m/s^2"
    }
}
