/// What a source hands the core, and what a recording holds: the raw input, in
/// receive-time order. Replaying a recording feeds the core exactly these values.
public enum SensorRecord: Sendable, Hashable {
    /// One NMEA sentence as gpsd relayed it, without the line ending.
    case nmea(SampleTime, String)
    case imu(IMUSample)
    /// The rider pressed start/stop (BBP tracking sessions are user-initiated).
    case marker(SampleTime, Marker)
    /// The rider says they just passed an obstacle of this kind (`bikepathd mark`, a
    /// handlebar button): a label for the detector's evaluation and a rider-reported obstacle.
    case label(SampleTime, ObstacleKind)

    public var time: SampleTime {
        switch self {
        case .nmea(let t, _): t
        case .imu(let s): s.time
        case .marker(let t, _): t
        case .label(let t, _): t
        }
    }
}

/// The rider's start and stop of a trip.
public enum Marker: String, Sendable, Hashable, Codable {
    case tripStart
    case tripStop
}

extension SensorRecord {
    /// The same record `ns` nanoseconds later in sample time: a recording played
    /// again after itself (`run --replay` repeats, the replay kill test's rides).
    /// The caller keeps the sum inside Int64 (`ReplaySource` refuses repeats that
    /// would leave it): an overflow traps.
    public func shifted(by ns: Int64) -> SensorRecord {
        switch self {
        case .nmea(let t, let s): .nmea(SampleTime(nanoseconds: t.nanoseconds + ns), s)
        case .imu(let s): .imu(IMUSample(time: SampleTime(nanoseconds: s.time.nanoseconds + ns), accel: s.accel, gyro: s.gyro))
        case .marker(let t, let m): .marker(SampleTime(nanoseconds: t.nanoseconds + ns), m)
        case .label(let t, let k): .label(SampleTime(nanoseconds: t.nanoseconds + ns), k)
        }
    }
}
