/// Constants of the recording file layout (docs/recording-format.md is the full description).
///
///     file   = magic(8) version(u16) headerLength(u32) header(headerLength) headerCRC(u32) record*
///     record = kind(u8) payloadLength(u32) payload(payloadLength) crc(u32 over kind..payload)
///
/// All integers and floats are little-endian.
public enum RecordingFormat {
    /// PNG-style magic: a non-ASCII first byte and CR LF / SUB / LF catch text-mode mangling.
    public static let magic: [UInt8] = [0x89, 0x42, 0x50, 0x52, 0x0D, 0x0A, 0x1A, 0x0A]  // \x89 B P R \r \n ^Z \n
    public static let version: UInt16 = 1
    /// Bytes before the header text: magic, version, header length.
    public static let preambleLength = 8 + 2 + 4
    public static let maxHeaderLength = 65_536
    /// Version 1 rule: no record payload is longer. A longer length field means corruption,
    /// which keeps a reader's memory bounded whatever the bytes say.
    public static let maxPayloadLength = 65_536
    /// kind + length before the payload, CRC after it.
    public static let recordOverhead = 1 + 4 + 4
    public static let maxNMEALength = 4_096
    /// Largest IMU block whose payload fits maxPayloadLength with a gyro.
    public static let maxIMUBlockSamples = (maxPayloadLength - imuBlockFixedLength) / imuSampleLengthWithGyro
    static let imuBlockFixedLength = 8 + 2 + 1
    static let imuSampleLength = 4 + 12
    static let imuSampleLengthWithGyro = 4 + 12 + 12
    static let imuFlagGyro: UInt8 = 1
}

/// The byte that tags each record of a recording, version 1 (the wire's kinds of upload are
/// `BikePathAPI.RecordKind`). A reader skips (and counts) tags it does not know, so new
/// kinds can be added without a version change; changing an existing layout needs one.
public enum RecordingTag: UInt8, Sendable, CaseIterable {
    /// i64 receive ns, then the sentence bytes (from `$` or `!`, no line ending).
    case nmea = 1
    /// i64 t0 ns, u16 count, u8 flags (bit 0: gyro), then per sample: u32 ns since the
    /// previous sample (the first: since t0), 3 × f32 accel m/s², [3 × f32 gyro rad/s].
    case imuBlock = 2
    /// i64 receive ns, u8 marker (1 tripStart, 2 tripStop).
    case marker = 3
    /// i64 receive ns, u8 obstacle kind (1 pothole, 2 bump, 3 debris, 4 irregularity):
    /// the rider's own mark. Readers older than this kind skip it.
    case label = 4
}

extension Marker {
    var recordingCode: UInt8 {
        switch self {
        case .tripStart: 1
        case .tripStop: 2
        }
    }

    init?(recordingCode: UInt8) {
        switch recordingCode {
        case 1: self = .tripStart
        case 2: self = .tripStop
        default: return nil
        }
    }
}

extension ObstacleKind {
    var recordingCode: UInt8 {
        switch self {
        case .pothole: 1
        case .bump: 2
        case .debris: 3
        case .irregularity: 4
        }
    }

    init?(recordingCode: UInt8) {
        switch recordingCode {
        case 1: self = .pothole
        case 2: self = .bump
        case 3: self = .debris
        case 4: self = .irregularity
        default: return nil
        }
    }
}
